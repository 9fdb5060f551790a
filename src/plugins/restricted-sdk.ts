import type { PluginSDK, RestrictedPluginSDK, SocialReadAPI } from '../spec/index.js';

/**
 * The restricted SDK (P-3) built from a full one: no `publish`, no `provide`/`use`, no
 * `registerRoute`, and `social()` is the read half only. External plugins get this surface over
 * the RPC bridge; the object returned here is used where a restricted plugin runs in process.
 */
export function restrictSdk(sdk: PluginSDK, socialRead: () => SocialReadAPI): RestrictedPluginSDK {
  return Object.freeze({
    plugin: sdk.plugin,
    log: sdk.log,
    homeDir: sdk.homeDir,
    get dataDir() {
      return sdk.dataDir;
    },
    registerTool: sdk.registerTool,
    registerStage: sdk.registerStage,
    subscribe: sdk.subscribe,
    registerOutputChannel: sdk.registerOutputChannel,
    registerPromptSlot: sdk.registerPromptSlot,
    registerContextFilter: sdk.registerContextFilter,
    onDispose: sdk.onDispose,
    injectInput: sdk.injectInput,
    injectInterrupt: sdk.injectInterrupt,
    memory: sdk.memory,
    knowledge: sdk.knowledge,
    settings: sdk.settings,
    llm: sdk.llm,
    sessions: sdk.sessions,
    social: () => {
      const s = socialRead();
      return Object.freeze({
        getPerson: s.getPerson.bind(s),
        getTrait: s.getTrait.bind(s),
        getRelations: s.getRelations.bind(s),
        getNetwork: s.getNetwork.bind(s),
        listPersons: s.listPersons.bind(s),
      });
    },
  });
}
