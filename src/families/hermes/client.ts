import { type FetchLike, JsonClient, type JsonReply } from '../kit/json-client.js';

export type HermesReply = JsonReply;

/** The Hermes gateway's client: the API key as Bearer by default; a room grant replaces it per request. */
export class HermesClient extends JsonClient {
  constructor(baseUrl: string, apiKey: string, fetch?: FetchLike) {
    super(baseUrl, { authorization: `Bearer ${apiKey}` }, fetch);
  }
}
