declare module "snowball-stemmers" {
  /** A Snowball stemmer for one algorithm ("russian", "arabic", …); `stem` takes one lowercase word. */
  export function newStemmer(algorithm: string): { stem(word: string): string };
  export function algorithms(): string[];
}
