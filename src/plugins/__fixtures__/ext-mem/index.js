// Test fixture for src/plugins/external: a tool that writes to memory through the restricted SDK.
import { definePlugin } from 'homeagent/sdk';

export default definePlugin({
  name: 'ext-mem',
  start(sdk) {
    sdk.registerTool({
      name: 'ext_remember',
      description: 'Remember that the user likes something',
      parameters: { type: 'object', properties: { what: { type: 'string' } } },
      handler: async (args) => `committed ${await sdk.memory().commit([{ subject: 'user', predicate: 'likes', object: String(args.what) }])}`,
    });
  },
});
