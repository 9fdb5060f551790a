/**
 * Memory contracts the kernel depends on (T-2 and the prompt slots of C-8). The memory subsystem
 * implements them; the kernel never imports it.
 */
import type { Conversation, Speaker } from './speaker.js';

/** Where an event in the context timeline came from. */
export type ContextEventKind = 'user' | 'agent' | 'cold_storage' | 'system';

/** Output of one tool call, as kept in the agent event that carried it. */
export interface ToolOutputRecord {
  tool: string;
  text: string;
  /** Copied from the ToolDef: excluded from vectors/keywords/distillation. */
  noMemory?: boolean;
}

/** One event of the agent-wide context timeline (seed: RelevanceContext events). */
export interface ContextEvent {
  id: string;
  /** Epoch milliseconds; cold_storage events keep their original time. */
  timestamp: number;
  kind: ContextEventKind;
  /** Plugin/source: `webui`, `cli`, `agentcli`, `terminal`, `cold_storage` … */
  source: string;
  channel: string;
  sessionId: string;
  /** user text (user events) or the original input (cold_storage). */
  input: string;
  /** agent reply (agent events). */
  response: string;
  toolOutputs?: ToolOutputRecord[];
  /**
   * Source references carried into derived memories. By convention the first is the turn id the
   * event belongs to (`<session>#<n>` for the kernel's turns); the memory tiers index it as the
   * event's turn id (crash recovery, reindex, forget by turn).
   */
  refs?: string[];
  /**
   * Who said it, when a chat channel named them (user events); absent = the owner (user events) or
   * the agent (agent events). Every memory tier keeps it as its own field (K-1, issue 15).
   */
  speaker?: Speaker;
  /** Where it was said (both the user and the agent event of a chat turn); absent = the owner's private session. */
  conversation?: Conversation;
}

export type NewContextEvent = Omit<ContextEvent, 'id' | 'timestamp'> & { id?: string; timestamp?: number };

/** The context window the kernel writes to and renders the timeline from. */
export interface ContextWindow {
  append(event: NewContextEvent): ContextEvent;
  /** Prune against the current input (T-2); archives pruned events. */
  prune(query: string): Promise<void>;
  /** Events in time order (oldest first). */
  events(): readonly ContextEvent[];
  flush(): Promise<void>;
}

/** Named slots of the system prompt (C-8), in render order. */
export const PROMPT_SLOTS = ['persona', 'memory_index', 'related_documents', 'knowledge', 'memory_library', 'skills', 'output_rules', 'timeline', 'extra'] as const;
export type PromptSlot = (typeof PROMPT_SLOTS)[number];

/** What a slot provider is asked for. */
export interface PromptQuery {
  sessionId: string;
  turnId: string;
  input: string;
  consolidation: boolean;
  /** Who is speaking this turn (chat channels); absent = the owner. */
  speaker?: Speaker;
  /**
   * Where this turn happens. In a `group` a provider must not inject what was said in a private
   * place (memory scoping, R-5); absent = the owner's private session.
   */
  conversation?: Conversation;
}

/**
 * Where one item of an injected block came from (issue 12 part 6, "why was this recalled"): the
 * tier, the memory's id there, when and where it was said and the turn it belongs to, so a person
 * can open the block into its sources and jump to the turn.
 */
export interface InjectedSource {
  /** A recall tier, or `library` (a memory-manager memory) / `knowledge` (a knowledge-base entry). */
  tier: RecallTier | 'library' | 'knowledge';
  /** Id in that tier: event / document id, `relation:<id>`, a library memory id, a knowledge entry name. */
  id: string;
  /** What was injected of it (one line, at most a few hundred characters). */
  text: string;
  /** When it was said or recorded, epoch ms. */
  at?: number;
  sessionId?: string;
  channel?: string;
  /** The turn it was said in (`<session>#<n>`), when known: the WebUI jumps there. */
  turnId?: string;
  /** Or the session log event it was taken from (a library memory's source), when no turn is known. */
  seq?: number;
  speaker?: Speaker;
  conversation?: Conversation;
}

/** A filled slot that names its sources (what the kernel logs as the turn's `injection` event). */
export interface PromptSlotFill {
  text: string;
  sources?: InjectedSource[];
}

/** Fills one slot: text alone, or text with the sources of its items. */
export type PromptSlotProvider = (q: PromptQuery) => string | PromptSlotFill | undefined | Promise<string | PromptSlotFill | undefined>;

/** The text of a slot provider's answer, whichever form it took. */
export function slotText(fill: string | PromptSlotFill | undefined | null): string | undefined {
  if (fill == null) return undefined;
  return typeof fill === 'string' ? fill : fill.text;
}

/** A triple for the knowledge graph (T-4), with the seed's extensions. */
export interface Triple {
  subject: string;
  predicate: string;
  object: string;
  confidence?: number;
  subjectType?: string;
  objectType?: string;
  /** The source sentence, kept for review. */
  sentence?: string;
  /** Source references (turn ids, dia_ids). */
  refs?: string[];
  /** Speaker id of the turns in `refs` (who said it), recorded with each source. */
  speaker?: string;
  /**
   * When the source said it (epoch ms; default: when it is committed). A fact of a single-valued
   * predicate (name, lives_in, works_at, age) holds from then until a later one replaces it (K-4).
   */
  validFrom?: number;
}

export interface GraphEntity {
  id: number;
  name: string;
  type: string;
  attributes: Record<string, unknown>;
}

export interface GraphRelation {
  id: number;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  sentence?: string;
  refs?: string[];
  /** Since when the fact holds (epoch ms), when known (K-4). */
  validFrom?: number;
  /**
   * Until when it held (epoch ms): a later fact of the same single-valued predicate replaced it.
   * Absent: it holds now.
   */
  validTo?: number;
}

/** The memory tier a recall hit comes from (K-1). */
export type RecallTier = 'context' | 'document' | 'archive' | 'graph';

/**
 * One hit of the recall over every memory tier (K-1), with its provenance: the tier, when it was
 * said, in which session and channel, by whom, and the turn it belongs to. A `graph` hit is a fact
 * (`subject predicate object`) whose `refs` name the turns it was distilled from.
 */
export interface RecallHit {
  tier: RecallTier;
  /** Event / document id (graph: `relation:<id>`). */
  id: string;
  text: string;
  /** Relative score (comparable within one result list only). */
  score: number;
  /** When it was said (graph: when the fact was recorded), epoch ms. */
  createdAt: number;
  sessionId: string;
  channel: string;
  source: string;
  /** Event kind (`user`, `agent`, `cold_storage`) or document kind (`commit`, …); graph: the predicate. */
  kind: string;
  speaker?: Speaker;
  /** Where it was said (absent: the owner's private session). */
  conversation?: Conversation;
  /** The turn the hit belongs to (first ref), when known. */
  turnId?: string;
  refs: string[];
}

/** The memory API of the plugin SDK (sdk.memory()). */
export interface MemoryAPI {
  recall(keywords: string[], depth?: number): Promise<{ entities: GraphEntity[]; relations: GraphRelation[] }>;
  commit(triples: Triple[]): Promise<number>;
  /**
   * Vectors of `texts` in the agent's one embedding space (T-1), unit length; `null` for a text the
   * model cannot embed, and all `null` while no dense model is loaded (lexical only).
   */
  embed(texts: string[]): Promise<(number[] | null)[]>;
  /** Id of the current embedding model (`lexical` when none); vectors of different ids are never compared. */
  embeddingModel(): Promise<string>;
}

export interface KnowledgeEntry {
  name: string;
  content: string;
  updatedAt: number;
}

/** The knowledge API of the plugin SDK (sdk.knowledge()). */
export interface KnowledgeAPI {
  search(query: string, limit?: number): Promise<{ name: string; score: number; snippet: string }[]>;
  create(name: string, content: string): Promise<KnowledgeEntry>;
  list(): Promise<{ name: string; updatedAt: number; size: number }[]>;
}

export interface Person {
  name: string;
  traits: Record<string, string>;
}

/** The social API (T-7). External plugins get only the read half. */
export interface SocialReadAPI {
  getPerson(name: string): Promise<Person | undefined>;
  getTrait(name: string, trait: string): Promise<string | undefined>;
  getRelations(name: string): Promise<GraphRelation[]>;
  getNetwork(name: string, depth?: number): Promise<{ people: string[]; relations: GraphRelation[] }>;
  listPersons(): Promise<string[]>;
}

export interface SocialAPI extends SocialReadAPI {
  setTrait(name: string, trait: string, value: string): Promise<void>;
  relate(a: string, relation: string, b: string): Promise<void>;
}

/** The largest knowledge entry, in bytes of UTF-8 (T-10): the knowledge base refuses more, and `waiter knowledge put` says so before sending. */
export const MAX_KNOWLEDGE_BYTES = 1_048_576;

/**
 * The largest file read into a knowledge entry (a PDF, an HTML page, a text file), in bytes: the
 * WebUI's upload route refuses a bigger body before reading it, and `waiter knowledge put` a
 * bigger file. What is read from it must still fit {@link MAX_KNOWLEDGE_BYTES}.
 */
export const MAX_KNOWLEDGE_FILE_BYTES = 25 * 1_048_576;
