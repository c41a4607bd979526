/** Sends the 20 exchanges to `base`; resolves to `status body` for each, as the client read it. */
export function twentyExchanges(base: string, init?: Record<string, unknown>): Promise<string[]>;
