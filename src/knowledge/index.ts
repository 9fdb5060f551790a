/** Knowledge base (T-10): `knowledge/<name>/content.md`, its own BM25 index, tools and a prompt slot. */
export { KnowledgeBase, assertKnowledgeName, snippet, KNOWLEDGE_NAME_RE, MAX_KNOWLEDGE_BYTES, type KnowledgeBaseOptions } from './knowledge-base.js';
export { Bm25Index, tokenize, type TextIndex } from './bm25-index.js';
export { knowledgeTools } from './knowledge-tools.js';
