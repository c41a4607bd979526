// Packs for streams no family records: an LLM provider's API, checked in any recording `bench proxy` makes of it.
import type { Pack } from '../contracts/index.js';
import { anthropicMessages } from './anthropic-messages.js';

/** The provider packs tapedeck ships, registered beside the families' and chosen by traffic. */
export const PROVIDER_PACKS: readonly Pack[] = [anthropicMessages];
