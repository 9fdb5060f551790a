import { describe, expect, it } from 'vitest';
import { isKnowledgeName, knowledgeNameFromFile } from './knowledge-name';

describe('knowledge entry names', () => {
  it('a file name becomes an entry name the daemon takes: the extension goes, what the rule refuses becomes a space', () => {
    expect(knowledgeNameFromFile('体检报告.pdf')).toBe('体检报告');
    expect(knowledgeNameFromFile('体检报告 (2024).pdf')).toBe('体检报告 2024');
    expect(knowledgeNameFromFile('C:\\Users\\me\\notes.v2.md')).toBe('notes.v2');
    expect(knowledgeNameFromFile('#家庭网络#…设置.html')).toBe('家庭网络 设置');
    expect(knowledgeNameFromFile('..secret..txt.')).toBe('secret.txt');
    expect(knowledgeNameFromFile('((()))).txt')).toBe('');
    const long = knowledgeNameFromFile(`${'长'.repeat(80)}.md`);
    expect([...long].length).toBe(64);
    for (const f of ['体检报告 (2024).pdf', 'notes.v2.md', '#家庭网络#…设置.html', `${'长'.repeat(80)}.md`, 'a b  .txt']) expect(isKnowledgeName(knowledgeNameFromFile(f))).toBe(true);
  });
  it('the knowledge base\'s rule: a letter or digit first, at most 64 characters, no "..", no path, no dot or space at the end', () => {
    for (const ok of ['体检报告', 'Recipes', 'v1.2 notes', '2024_体检-报告']) expect(isKnowledgeName(ok)).toBe(true);
    for (const bad of ['', '../x', 'a/b', '.hidden', 'a..b', 'trailing.', 'trailing ', 'a*b?', 'x'.repeat(65)]) expect(isKnowledgeName(bad)).toBe(false);
  });
});
