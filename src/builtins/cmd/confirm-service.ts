/** The confirmation service `cmd` asks, declared in the contracts layer (`host.confirm`). */
export type { ConfirmService } from '../../spec/index.js';
