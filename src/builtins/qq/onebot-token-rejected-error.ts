import { HomeAgentError } from '../../sdk/index.js';
import { channelWords, type ChannelWords } from '../shared/index.js';

/** The OneBot implementation refused our access token (HTTP 401/403 at the handshake). */
export class OneBotTokenRejectedError extends HomeAgentError {
  /** The sentence for the page (decision 0680). */
  readonly words: ChannelWords;

  constructor(status: number) {
    super('ONEBOT_TOKEN_REJECTED', `the OneBot implementation rejected the access token (HTTP ${status})`, { details: { status } });
    this.words = channelWords('ONEBOT_TOKEN_REJECTED', { status });
  }
}
