// Test fixture: starts fine, then its process dies shortly after every start.
export default {
  name: 'ext-crashy',
  start(sdk) {
    sdk.registerTool({ name: 'crashy_tool', description: 'x', parameters: { type: 'object', properties: {} }, handler: () => 'x' });
    setTimeout(() => process.exit(1), 300);
  },
};
