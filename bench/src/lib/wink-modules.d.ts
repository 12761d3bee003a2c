// Minimal declarations for the wink packages (they ship none).
declare module "wink-bm25-text-search" {
  type PrepTask = (input: never) => unknown;
  interface Bm25Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
    definePrepTasks(tasks: PrepTask[], field?: string): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): [string, number][];
  }
  const bm25: () => Bm25Engine;
  export default bm25;
}

declare module "wink-nlp-utils" {
  const nlp: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[]; removeExtraSpaces(s: string): string };
    tokens: {
      removeWords(t: string[]): string[];
      stem(t: string[]): string[];
      propagateNegations(t: string[]): string[];
    };
  };
  export default nlp;
}
