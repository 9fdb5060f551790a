// Test fixture: version 1 of a plugin that `.hmap` installs replace.
export default {
  name: 'ext-versioned',
  start(sdk) {
    sdk.registerTool({ name: 'versioned_which', description: 'Which version runs', parameters: { type: 'object', properties: {} }, handler: () => 'v1' });
  },
};
