// Canary secrets of every kind the redactor knows, made up at test time (no real credential
// and no token-shaped literal in the repository): each in the context it usually travels in
// (`AWS_SECRET_ACCESS_KEY=...`, `Authorization: Bearer ...`), with the kind its replacement names.

import { generateKeyPairSync } from "node:crypto";

export interface Canary {
  /** The kind the replacement must name. */
  readonly kind: string;
  /** The secret itself: it must not survive anywhere a model reads. */
  readonly secret: string;
  /** A line of text carrying the secret as tools print it. */
  readonly text: string;
  /**
   * Whether the secret is recognisable alone, by its format. An AWS secret key, a password or a
   * Bearer token is 40 random characters without the name or header before it: those are
   * found in context only (or when listed as known secrets).
   */
  readonly standalone: boolean;
}

/** Kinds recognised only with the text around the secret. */
const CONTEXTUAL_KINDS = new Set([
  "aws-secret-access-key",
  "url-password",
  "bearer-token",
  "basic-auth",
  "authorization-header",
  "api-key-header",
  "password",
]);

/** A deterministic generator, so a failing canary can be reproduced. */
function randomSource(seed: number): (alphabet: string, count: number) => string {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, count) => {
    // A digit and a letter somewhere when the alphabet has both, as generated tokens have.
    const mixed = /\d/.test(alphabet) && /[A-Za-z]/.test(alphabet) && count >= 8;
    let text = "";
    while (!(text.length === count && (!mixed || (/\d/.test(text) && /[A-Za-z]/.test(text))))) {
      text = Array.from({ length: count }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    }
    return text;
  };
}

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const UPPER32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** One canary per kind; the same values on every call with the same seed. */
export function createCanaries(seed = 22): Canary[] {
  const random = randomSource(seed);
  const password = `Pw-${random(BASE62, 14)}`;
  // A 1Password service account token is base64 of a JSON object ending in "}" (so "fQ").
  let opsJson = JSON.stringify({ signInAddress: "acme.1password.com", secretKey: random(BASE62, 60) });
  while (opsJson.length % 3 !== 1) opsJson = `${opsJson.slice(0, -1)} }`;
  const privateKey = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
    type: "pkcs8",
    format: "pem",
  }) as string;
  const jwt = `${base64url({ alg: "HS256", typ: "JWT" })}.${base64url({ sub: random(HEX, 12), exp: 1_900_000_000 })}.${random(BASE62, 43)}`;
  const list: [string, string, (secret: string) => string][] = [
    ["github-token", `gh${"p"}_${random(BASE62, 36)}`, (secret) => `GITHUB_TOKEN=${secret}`],
    ["github-token", `github${"_pat"}_${random(BASE62, 82)}`, (secret) => `token: ${secret}`],
    ["gitlab-token", `gl${"pat"}-${random(BASE62, 20)}`, (secret) => `"private_token": "${secret}"`],
    ["aws-access-key-id", `AK${"IA"}${random(UPPER32, 16)}`, (secret) => `aws_access_key_id = ${secret}`],
    ["aws-secret-access-key", random(`${BASE62}/+`, 40), (secret) => `AWS_SECRET_ACCESS_KEY="${secret}"`],
    [
      "slack-token",
      `xo${"xb"}-${random("0123456789", 11)}-${random("0123456789", 13)}-${random(BASE62, 24)}`,
      (secret) => `SLACK_BOT_TOKEN=${secret}`,
    ],
    [
      "slack-webhook",
      `https://hooks.slack.com/services/T${random(UPPER32, 8)}/B${random(UPPER32, 10)}/${random(BASE62, 24)}`,
      (secret) => `posting to ${secret}`,
    ],
    ["sendgrid-api-key", `S${"G"}.${random(BASE62, 22)}.${random(BASE62, 43)}`, (secret) => `SENDGRID_KEY=${secret}`],
    ["stripe-key", `sk${"_live"}_${random(BASE62, 24)}`, (secret) => `stripe.apiKey = "${secret}"`],
    [
      "openai-api-key",
      `sk-${"proj"}-${random(BASE62, 74)}T3BlbkFJ${random(BASE62, 74)}`,
      (secret) => `OPENAI_API_KEY=${secret}`,
    ],
    ["anthropic-api-key", `sk-${"ant"}-api03-${random(`${BASE62}-_`, 93)}AA`, (secret) => `x-api-key: ${secret}`],
    ["groq-api-key", `gs${"k"}_${random(BASE62, 52)}`, (secret) => `GROQ_API_KEY=${secret}`],
    ["huggingface-token", `h${"f"}_${random(LETTERS, 34)}`, (secret) => `HF_TOKEN=${secret}`],
    ["npm-token", `np${"m"}_${random(BASE62, 36)}`, (secret) => `NPM_TOKEN=${secret}`],
    ["google-api-key", `AI${"za"}${random(`${BASE62}-_`, 35)}`, (secret) => `maps?key=${secret}&q=cafe`],
    ["jwt", jwt, (secret) => `session cookie: ${secret}`],
    ["private-key", privateKey, (secret) => `key file:\n${secret}`],
    ["url-password", password, (secret) => `DATABASE_URL=postgres://app:${secret}@db.internal:5432/app`],
    [
      "bearer-token",
      random(BASE62, 40),
      (secret) => `curl -H "Authorization: Bearer ${secret}" https://api.example.net`,
    ],
    ["basic-auth", Buffer.from(`alice:${password}`).toString("base64"), (secret) => `Authorization: Basic ${secret}`],
    ["authorization-header", random(HEX, 40), (secret) => `Authorization: token ${secret}`],
    ["api-key-header", random(BASE62, 32), (secret) => `X-Api-Key: ${secret}`],
    ["password", `Tr0ub4dor&${random(BASE62, 6)}`, (secret) => `DB_PASSWORD=${secret}`],
    ["vault-token", `hv${"s"}.${random(`${BASE62}_-`, 95)}`, (secret) => `VAULT_TOKEN=${secret}`],
    ["databricks-token", `da${"pi"}${random(HEX, 32)}`, (secret) => `DATABRICKS_TOKEN=${secret}`],
    ["docker-token", `dck${"r_pat"}_${random(`${BASE62}_-`, 27)}`, (secret) => `docker login -p ${secret}`],
    ["figma-token", `fig${"d"}_${random(`${BASE62}_-`, 40)}`, (secret) => `FIGMA_TOKEN=${secret}`],
    ["vercel-token", `vc${"p"}_${random(BASE62, 24)}`, (secret) => `VERCEL_TOKEN=${secret}`],
    ["linear-api-key", `lin${"_api"}_${random(BASE62, 40)}`, (secret) => `LINEAR_API_KEY=${secret}`],
    ["notion-token", `nt${"n"}_${random("0123456789", 11)}${random(BASE62, 35)}`, (secret) => `NOTION=${secret}`],
    [
      "1password-token",
      `op${"s"}_${Buffer.from(opsJson).toString("base64")}`,
      (secret) => `OP_SERVICE_ACCOUNT_TOKEN=${secret}`,
    ],
    ["grafana-token", `gl${"sa"}_${random(BASE62, 32)}_${random(HEX, 8)}`, (secret) => `GRAFANA=${secret}`],
    ["shopify-token", `shp${"at"}_${random(HEX, 32)}`, (secret) => `X-Shopify-Access-Token: ${secret}`],
  ];
  return list.map(([kind, secret, text]) => ({
    kind,
    secret,
    text: text(secret),
    standalone: !CONTEXTUAL_KINDS.has(kind),
  }));
}

/** The canaries' secrets that occur in `text` (a private key is checked by its base64 body lines). */
export function leakedSecrets(text: string, canaries: readonly Canary[]): string[] {
  const leaked: string[] = [];
  for (const { secret, kind } of canaries) {
    if (secret.length < 8) continue;
    if (kind === "private-key") {
      const body = secret.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));
      if (body.some((line) => text.includes(line))) leaked.push(secret);
    } else if (text.includes(secret)) {
      leaked.push(secret);
    }
  }
  return leaked;
}
