import { ALWAYS_REDACTED_HEADERS, NOT_SECRET, type RedactionConfig, type RedactorOptions } from './config.js';
import { isEchoedIdentifier, isPasswordName, isSchemeName, isSecretName, MIN_CREDENTIAL_LENGTH, type NamePlace } from './secret-names.js';
import { routeSecrets } from './secret-routes.js';

/**
 * How a name holds its value: not a secret; a secret when the value could be a credential (a name judged by its
 * words alone, decision 0016); a secret whatever the value (a password, a name the configuration lists, an
 * always-redacted header).
 */
export type Secrecy = 'none' | 'judged' | 'always';
/** The secret name a JSON value stands under (its placeholder's name), and how secret what is under it is. */
export interface Under {
  name: string;
  secrecy: Exclude<Secrecy, 'none'>;
}

/** Which names are secret, as one configuration decides: each name judged once and remembered. */
export interface SecrecyRules {
  header(name: string): Secrecy;
  query(name: string): Secrecy;
  field(name: string): Secrecy;
  /** What a field's value is under: its name when it is secret, with that name's secrecy. */
  underName(name: string): Under | undefined;
  /**
   * A value deeper under a secret name keeps that name for its placeholder, and takes the stricter secrecy of the
   * two: `"token": {"password": "x"}` holds a password.
   */
  within(under: Under, key: string): Under;
  /** The secrets a path holds by its route (`/keys/{key}`), each with the name its placeholder gets. */
  routeSecrets(pathname: string): [string, string][];
}

/** Names repeat on every request and in every body: decide each once, in one map per kind of name. */
function judged(decide: (name: string) => Secrecy): (name: string) => Secrecy {
  const verdicts = new Map<string, Secrecy>();
  return (name) => {
    let verdict = verdicts.get(name);
    if (verdict === undefined) {
      verdict = decide(name);
      if (verdicts.size < 10_000) verdicts.set(name, verdict);
    }
    return verdict;
  };
}

/** The secrecy rules of a configuration: its names, its exemptions, then each name's words. */
export function secrecyRules(config: RedactionConfig, options: RedactorOptions): SecrecyRules {
  const judgeValues = options.judgeValues ?? true;
  const exempt = new Set([...NOT_SECRET, ...config.exempt].map((n) => n.toLowerCase()));
  const listed = (names: readonly string[]) => new Set(names.map((n) => n.toLowerCase()));
  const [headerNames, queryNames, fieldNames] = [
    listed([...ALWAYS_REDACTED_HEADERS, ...config.headers]),
    listed(config.query),
    listed(config.jsonFields),
  ];
  /** A name's secrecy by its words, once the configuration had its say. */
  const byWords = (name: string, place: NamePlace): Secrecy => {
    if (!judgeValues) return isSecretName(name, place) || isEchoedIdentifier(name) ? 'always' : 'none';
    if (!isSecretName(name, place)) return 'none';
    return isPasswordName(name) ? 'always' : 'judged';
  };
  const byList = (names: Set<string>, place: NamePlace) => (name: string) => {
    const lower = name.toLowerCase();
    if (exempt.has(lower)) return 'none';
    return names.has(lower) ? 'always' : byWords(name, place);
  };
  const header = judged((name) => (ALWAYS_REDACTED_HEADERS.includes(name.toLowerCase()) ? 'always' : byList(headerNames, 'header')(name)));
  const field = judged(byList(fieldNames, 'field'));
  // One per secret field name, so a walk allocates nothing per leaf.
  const unders = new Map<string, Under | undefined>();
  const underName = (name: string): Under | undefined => {
    if (unders.has(name)) return unders.get(name);
    const secrecy = field(name);
    const under = secrecy === 'none' ? undefined : { name, secrecy };
    if (unders.size < 10_000) unders.set(name, under);
    return under;
  };
  const within = (under: Under, key: string): Under =>
    under.secrecy === 'judged' && field(key) === 'always' ? { name: under.name, secrecy: 'always' } : under;
  return { header, query: judged(byList(queryNames, 'query')), field, underName, within, routeSecrets: routeSecrets(config.paths) };
}

/** Whether a value under a secret name is kept: one that cannot be a credential, under a name judged by its words. */
export const kept = (secrecy: Secrecy, value: string): boolean => secrecy === 'judged' && value.length < MIN_CREDENTIAL_LENGTH;

/** The name of a scheme under `auth` (`"type": "bearer"`), kept as clients read it; not under a password. */
export const isScheme = (under: Under, value: string): boolean => under.secrecy === 'judged' && isSchemeName(under.name, value);
