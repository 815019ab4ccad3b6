// One entry of the differential corpus: a script run in both engines, and where its behaviour is documented.

export interface Snippet {
  /** Unique in the corpus: the test's name. */
  name: string;
  script: string;
  /** The page that documents the behaviour (PowerShell-Docs reference/5.1 unless it says otherwise). */
  page: string;
  /**
   * Where Windows PowerShell 5.1 (what nodes run, what the simulator follows) and pwsh 7.6 (what runs here)
   * differ: why, with its source, and what each engine must give. Both halves are checked, so the explanation
   * cannot hide a difference it does not describe.
   */
  differs51?: { why: string; pwsh7: Partial<Compared>; ps51: Partial<Compared> };
}

/** What the suite compares: the text written to stdout, the exit code, and each error's class. */
export interface Compared {
  stdout: string;
  exitCode: number;
  /** Per error shown: `FullyQualifiedErrorId | category | exception type` (CategoryInfo's first and last words). */
  errors: string[];
}
