import type { AttachmentPort, ConfigReader, ContextEvent, ContextWindow, PeopleDirectory } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import type { EventBus } from './event-bus.js';
import type { StageHost } from './stage-host.js';
import type { SystemPromptBuilder } from './system-prompt.js';
import type { ToolAggregator } from './tool-aggregator.js';
import type { OutputChannels } from './output-channels.js';
import type { LlmPort, SessionPort, TextLogPort } from './ports.js';

/** Everything a turn needs; assembled once by the Agent. */
export interface KernelDeps {
  bus: EventBus;
  stages: StageHost;
  prompt: SystemPromptBuilder;
  tools: ToolAggregator;
  channels: OutputChannels;
  llm: LlmPort;
  sessions: SessionPort;
  context: ContextWindow;
  config?: ConfigReader;
  /** Who is who across channels (decision 0090); without it only `core.identity.owner_ids` marks the owner. */
  people?: PeopleDirectory;
  log: Logger;
  textLog?: TextLogPort;
  /** Keeps and reads attachments (C-11); without it only images reach the model. */
  media?: AttachmentPort;
  now: () => number;
  /** A proactive notice to the owner, with no LLM turn (the Agent's `notify`). */
  notice?: (n: { text: string; source: string }) => Promise<unknown>;
  /** Context filters (M-9): an event is hidden from the timeline when any returns false. */
  contextVisible: (e: ContextEvent) => boolean;
}
