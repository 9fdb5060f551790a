import type { ChatMessage, StageContext, ToolDef, TurnInput } from '../spec/index.js';
import { ValidationError } from '../spec/index.js';
import type { KernelDeps } from './kernel-deps.js';
import { cfg } from './ports.js';
import { llmChainEvent } from './llm-chain-event.js';

/** Tools a sub-agent may use besides the ones it is given (C-10: output channels allowed). */
export function subAgentAllowed(name: string, requested: string[]): boolean {
  if (name === 'subagent_spawn') return false;
  return name.startsWith('output_send__') || requested.includes(name);
}

/**
 * The `subagent_spawn` tool (C-10): runs a bounded tool loop with its own system prompt and a
 * restricted tool set; its final text is the tool result. Every round is published as
 * `agent_llm_chain` under `<turnId>/sub`.
 */
export function subAgentTool(d: KernelDeps): ToolDef {
  return {
    name: 'subagent_spawn',
    // A user interrupt stops the sub-agent's LLM call; the main loop then sees the interrupt.
    interruptible: true,
    description:
      'Delegate a self-contained task to a sub-agent with its own instructions and a restricted tool set. Returns the sub-agent\'s final answer. Output channel tools (output_send__*) are always allowed; list other tools by name in "tools".',
    parameters: {
      type: 'object',
      properties: {
        task: { type: 'string', description: 'What the sub-agent must do.' },
        instructions: { type: 'string', description: 'Optional system instructions for the sub-agent.' },
        tools: { type: 'array', items: { type: 'string' }, description: 'Names of tools the sub-agent may use.' },
      },
      required: ['task'],
    },
    handler: async (args, call) => {
      if (typeof args.task !== 'string' || !args.task.trim()) throw new ValidationError('task is required');
      const requested = Array.isArray(args.tools) ? args.tools.filter((t): t is string => typeof t === 'string') : [];
      const maxRounds = Math.max(1, cfg(d.config, 'core.subagent.max_rounds', 4));
      const timeoutMs = Math.max(1000, cfg(d.config, 'core.subagent.timeout_ms', 120_000));
      const ac = new AbortController();
      // The sub-agent's own tools stop only on shutdown or this timeout: a user interrupt stops the
      // sub-agent's LLM calls (it then ends), but a tool it already started runs — at most until here.
      const toolAc = new AbortController();
      const timer = setTimeout(() => {
        ac.abort(new Error('sub-agent timed out'));
        toolAc.abort(new Error('sub-agent timed out'));
      }, timeoutMs);
      timer.unref?.();
      const onParent = () => {
        ac.abort(new Error('parent aborted'));
        const reason = call.signal.reason as Error | undefined;
        if (reason?.message !== 'interrupted') toolAc.abort(reason ?? new Error('parent aborted'));
      };
      call.signal.addEventListener('abort', onParent, { once: true });
      const system =
        (typeof args.instructions === 'string' && args.instructions.trim()) ||
        'You are a focused sub-agent of HomeAgent. Complete the task with the tools you have, then answer with the result only.';
      const messages: ChatMessage[] = [{ role: 'user', content: args.task }];
      const subTurn = `${call.turnId}/sub-${call.callId}`;
      const input: TurnInput = { sessionId: call.sessionId, source: 'subagent', channel: 'subagent', text: args.task, trigger: 'system' };
      const state: Record<string, unknown> = {};
      const stage = async (ctx: StageContext, toolName: string): Promise<void> => {
        for (const f of await d.stages.runStage(ctx.stage, ctx, toolName)) d.bus.emit('stage_error', { turnId: subTurn, stage: ctx.stage, plugin: f.plugin, message: f.message, stack: f.stack });
      };
      try {
        for (let round = 1; round <= maxRounds; round++) {
          const tools = d.tools.build((t) => subAgentAllowed(t.name, requested));
          const res = await d.llm.run({ messages: [{ role: 'system', content: system }, ...messages], tools: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })) }, { signal: ac.signal });
          d.bus.emit('agent_llm_chain', llmChainEvent(res, { turnId: subTurn, sessionId: call.sessionId, round, consolidation: false, injected: [], at: d.now() }));
          if (res.toolCalls.length === 0) return res.text;
          messages.push({ role: 'assistant', content: res.text, toolCalls: res.toolCalls });
          for (const tc of res.toolCalls) {
            const def = tools.find((t) => t.name === tc.name);
            let out: string;
            if (!def) out = `Error: tool "${tc.name}" is not available to this sub-agent`;
            else {
              let a: Record<string, unknown> = {};
              try {
                a = tc.arguments ? JSON.parse(tc.arguments) : {};
              } catch {
                out = 'Error: arguments are not valid JSON';
                messages.push({ role: 'tool', toolCallId: tc.id, name: tc.name, content: out });
                continue;
              }
              // The sub-agent's calls pass the same audit stages as the main loop's (C-4).
              const before: StageContext = { stage: 'before_toolcall', input, turnId: subTurn, round, messages, state, toolCall: tc, args: a };
              await stage(before, tc.name);
              if (before.rejected) out = `Rejected: ${before.rejected}`;
              else {
                if (ac.signal.aborted) break; // interrupted or timed out: no new tool
                const r = await d.stages.executeTool(def, before.args ?? a, { sessionId: call.sessionId, turnId: subTurn, callId: tc.id, signal: toolAc.signal, ...(call.speaker ? { speaker: call.speaker } : {}), ...(call.conversation ? { conversation: call.conversation } : {}) });
                const after: StageContext = { stage: 'after_toolcall', input, turnId: subTurn, round, messages, state, toolCall: tc, args: before.args ?? a, result: r.output };
                await stage(after, tc.name);
                out = after.result ?? r.output;
              }
            }
            messages.push({ role: 'tool', toolCallId: tc.id, name: tc.name, content: out });
          }
        }
        return `(sub-agent stopped after ${maxRounds} rounds without a final answer)`;
      } finally {
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onParent);
      }
    },
  };
}
