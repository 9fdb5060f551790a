/** Shapes of the memory-manager API (M-11), as the panel uses them. */
export interface MemorySummary {
  id: string;
  title: string;
  impressions: string[];
  tags: string[];
  enabled: boolean;
  links: string[];
  composedOf: string[];
  backlinks?: string[];
  source?: { sessionId: string; seqs: number[] };
  /** Who said it, when it was saved from a chat channel turn (front-matter speaker / speakerName). */
  speaker?: { id: string; name?: string };
  conversation?: string;
  createdAt: string;
  updatedAt: string;
  preview?: string;
  /** Made from a turn excluded now: kept from the model until it is restored (decision 0440). */
  setAside?: boolean;
  score?: number;
  distance?: number;
}
export interface MemoryRecord extends MemorySummary {
  snapshot: string;
  notes: string;
  /** Its links and sources that name a memory no longer in the library (memory.get). */
  missing?: string[];
  /** Why its file was read only in part (a hand edit's broken front matter, not UTF-8 text): it cannot be changed here. */
  frontMatterError?: string;
}
export interface Plan {
  pinned: { id: string; role: string; text: string; at: number }[];
  memories: { id: string; title: string; impressions: string[]; tags: string[] }[];
  injectOnce: boolean;
  excluded: Record<string, string[]>;
  once: { id: string; text?: string; memoryId?: string; at: number }[];
}
export interface PlanPreview {
  block: string | null;
  chars: number;
  active: boolean;
  used: { pinned: number; memories: number; once: number; total: number };
  caps: { pinned: number; memory: number; total: number };
  items: { section: string; id?: string; heading: string; chars: number; truncated: boolean }[];
  dropped: { section: string; id?: string; heading: string }[];
}
export interface Turn {
  turnId: string;
  n: number;
  seqs: number[];
  user: string;
  assistant: string;
  tools: string[];
  at: number;
  excluded: boolean;
  /** Forgotten (K-2): nothing of it is shown or offered. */
  forgotten?: true;
}
export interface MmConfig {
  enabled: boolean;
  mode: 'on' | 'off';
  view: 'full' | 'compact';
  modelTools: boolean;
  libraryPath: string;
  memoryChars: number;
  totalChars: number;
  pinChars: number;
  autoInject: boolean;
  effectiveLibraryPath?: string;
}
