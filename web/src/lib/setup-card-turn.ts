/** The error a turn ends with when no language model is set up (the chat shows the setup card for it). */
export const NO_MODEL_CODE = 'NO_PROVIDER_CONFIGURED';

/**
 * Which of the turns shown says in full how to connect a model: the newest that found none
 * (decision 0690). The others say it in one line that opens to the same card, so a conversation
 * held without a model stays readable. The newest, not the first: it is where the person reads
 * (a conversation opens at its newest message, and an older page of it may not be loaded at all).
 */
export function fullSetupTurn(turns: readonly { turnId: string; error?: { code?: string } }[]): string | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i].error?.code === NO_MODEL_CODE) return turns[i].turnId;
  return undefined;
}
