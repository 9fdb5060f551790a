import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { SchemaField, type ConfigKeyInfo } from './schema-field';

const list = (value: string[]): ConfigKeyInfo => ({
  key: 'core.identity.owner_ids',
  value,
  default: [],
  description: 'ids of the owner',
  secret: false,
  schema: { type: 'array', items: { type: 'string' } },
  origin: 'stored',
});
const render = (info: ConfigKeyInfo) => renderToStaticMarkup(<SchemaField info={info} onSave={async () => undefined} />);

describe('SchemaField', () => {
  it('a list with items stored says "custom"; cleared back to empty (stored as its default, []) it does not (decision 0690)', () => {
    expect(render(list(['qq:10001']))).toContain('data-testid="setting-custom"');
    expect(render(list([]))).not.toContain('data-testid="setting-custom"');
    expect(render(list([]))).not.toContain('>custom<');
  });
});
