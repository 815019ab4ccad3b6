// What a simulated command answers: the dataplane's CommandResult without the time it took (the bridge adds that).

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const ok = (stdout = ''): CommandResult => ({ stdout, stderr: '', exitCode: 0 });
export const fail = (stderr: string, exitCode = 1): CommandResult => ({ stdout: '', stderr, exitCode });
