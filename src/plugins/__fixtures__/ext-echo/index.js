// Test fixture for src/plugins/external: runs in its own process with the restricted SDK.
import { spawn } from 'node:child_process';
import { definePlugin, Cap, NotFoundError } from 'homeagent/sdk';

const noArgs = { type: 'object', properties: {} };

export default definePlugin({
  name: 'ext-echo',
  start(sdk) {
    sdk.registerTool({
      name: 'ext_echo',
      description: 'Echo the text back, with the process id',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args) => `${sdk.settings().get('prefix')}:${args.text} pid:${process.pid}`,
    });
    const answers = [];
    const ended = [];
    sdk.subscribe('turn_end', (e) => ended.push(e.turnId));
    sdk.registerTool({
      name: 'ext_ask',
      description: 'Inject an input; its outcome is collected by ext_answers',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      handler: async (args) => {
        const ticket = sdk.injectInput({ sessionId: 'ext:1', source: 'ext-echo', text: args.text });
        ticket.done.then((o) => answers.push({ turnId: o.turnId, text: o.text, status: o.status, seenEnd: ended.includes(o.turnId) }));
        await ticket.ready;
        return ticket.turnId;
      },
    });
    sdk.registerTool({ name: 'ext_answers', description: 'Collected outcomes', parameters: noArgs, handler: () => answers });
    sdk.registerTool({
      name: 'ext_token',
      description: 'Return the secret setting (tests only)',
      parameters: noArgs,
      handler: () => String(sdk.settings().get('token')),
    });
    sdk.registerTool({
      name: 'ext_missing',
      description: 'Throws a typed SDK error',
      parameters: noArgs,
      handler: () => {
        throw new NotFoundError('thing', 'abc');
      },
    });
    sdk.registerTool({
      name: 'ext_spawn',
      description: 'Start a long-running subprocess of the plugin and return its pid',
      parameters: noArgs,
      handler: () => {
        const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
        child.unref();
        return `pid:${child.pid}`;
      },
    });
    sdk.registerTool({
      name: 'ext_crash',
      description: 'Crash the plugin process',
      parameters: noArgs,
      handler: () => {
        setTimeout(() => process.exit(3), 5);
        return 'bye';
      },
    });
    sdk.registerTool({
      name: 'ext_whoami',
      description: 'Say whose turn called it (a tool safe for anyone)',
      parameters: noArgs,
      audience: 'anyone',
      handler: (_args, call) => JSON.stringify({ owner: call.owner, scope: call.scope, speaker: call.speaker?.id, conversation: call.conversation?.id, sessionId: call.sessionId }),
    });
    sdk.registerTool({
      name: 'ext_hang',
      description: 'Block the plugin process forever',
      parameters: noArgs,
      handler: () => {
        for (;;) {
          // busy forever: no heartbeat, no reply
        }
      },
    });
    sdk.registerTool({
      name: 'ext_freeze',
      description: 'Answer, then block the plugin process (only the heartbeat can tell)',
      parameters: noArgs,
      handler: () => {
        setTimeout(() => {
          for (;;) {
            // frozen
          }
        }, 20);
        return 'frozen soon';
      },
    });
    sdk.registerTool({
      name: 'ext_probe',
      description: 'Report what the SDK offers',
      parameters: noArgs,
      handler: async () => {
        let memory = 'allowed';
        try {
          await sdk.memory().recall(['x']);
        } catch (e) {
          memory = `${e.code}: ${e.message}`;
        }
        const sessions = await sdk.sessions().list();
        return {
          publish: typeof sdk.publish,
          provide: typeof sdk.provide,
          registerRoute: typeof sdk.registerRoute,
          socialKeys: Object.keys(sdk.social()).sort(),
          memory,
          sessions: Array.isArray(sessions),
          envKeys: Object.keys(process.env).sort(),
        };
      },
    });
    sdk.registerTool({
      name: 'ext_sneak',
      description: 'Send a raw publish / social write request past the SDK',
      parameters: { type: 'object', properties: { op: { type: 'string' } } },
      handler: (args) =>
        new Promise((resolve) => {
          const id = 1e9 + Math.floor(Math.random() * 1e6);
          const onMessage = (m) => {
            if (m && m.t === 'res' && m.id === id) {
              process.off('message', onMessage);
              resolve(m.ok ? 'accepted' : `refused: ${m.error.code}: ${m.error.message}`);
            }
          };
          process.on('message', onMessage);
          process.send({ t: 'req', id, op: args.op, args: { event: 'custom:x', payload: 1, name: 'a', trait: 'b', value: 'c' } });
        }),
    });
    const outbox = [];
    sdk.registerOutputChannel('extout', Cap.Text | Cap.Structured, 'Test channel of ext-echo', (msg) => {
      outbox.push({ payload: msg.payload, type: msg.type, meta: msg.meta, sessionId: msg.sessionId });
    }, { maxMessageLength: 10 });
    sdk.registerTool({ name: 'ext_outbox', description: 'What extout received', parameters: noArgs, handler: () => outbox });
    sdk.registerStage('before_output', (ctx) => {
      ctx.text = `${ctx.text} [ext]`;
    });
  },
});
