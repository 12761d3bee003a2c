// Minimal declarations for packages that ship no types (wink, autocannon).
declare module "wink-bm25-text-search" {
  type PrepTask = (input: never) => unknown;
  interface Bm25Engine {
    defineConfig(config: {
      fldWeights: Record<string, number>;
      bm25Params?: { k1?: number; b?: number; k?: number };
    }): boolean;
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
    string: {
      lowerCase(s: string): string;
      tokenize0(s: string): string[];
      removeExtraSpaces(s: string): string;
    };
    tokens: {
      removeWords(t: string[]): string[];
      stem(t: string[]): string[];
      propagateNegations(t: string[]): string[];
    };
  };
  export default nlp;
}

declare module "autocannon" {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    "2xx": number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    pipelining?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
