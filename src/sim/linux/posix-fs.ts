// The simulated Linux file system: paths, files with modes, directories; /proc and /dev are served by the host.

import { dirname } from '../shells/bash/posix-path.js';

export interface PosixFsState {
  files: Record<string, { content: string; mode: number }>;
  dirs: Record<string, true>;
}

export class PosixFs {
  constructor(readonly state: PosixFsState) {}

  static initial(): PosixFsState {
    const dirs: Record<string, true> = {};
    for (const d of ['/', '/etc', '/var', '/var/lib', '/var/log', '/root', '/tmp', '/usr', '/usr/bin', '/opt', '/proc', '/dev'])
      dirs[d] = true;
    return { files: { '/etc/hostname': { content: '', mode: 0o644 } }, dirs };
  }

  isFile(path: string): boolean {
    return path in this.state.files;
  }

  isDir(path: string): boolean {
    return path in this.state.dirs;
  }

  read(path: string): string | undefined {
    return this.state.files[path]?.content;
  }

  mode(path: string): number | undefined {
    return this.state.files[path]?.mode;
  }

  /** Writes a file; false when its directory does not exist or it is a directory. */
  write(path: string, content: string, mode?: number): boolean {
    if (!this.isDir(dirname(path)) || this.isDir(path)) return false;
    this.state.files[path] = { content, mode: mode ?? this.state.files[path]?.mode ?? 0o644 };
    return true;
  }

  chmod(path: string, mode: number): boolean {
    const file = this.state.files[path];
    if (!file) return this.isDir(path);
    file.mode = mode;
    return true;
  }

  /** mkdir -p; false when a file is in the way. */
  mkdirp(path: string): boolean {
    if (this.isFile(path)) return false;
    if (path !== '/' && !this.isDir(dirname(path)) && !this.mkdirp(dirname(path))) return false;
    this.state.dirs[path] = true;
    return true;
  }

  mkdir(path: string): 'ok' | 'exists' | 'no-parent' {
    if (this.isDir(path) || this.isFile(path)) return 'exists';
    if (!this.isDir(dirname(path))) return 'no-parent';
    this.state.dirs[path] = true;
    return 'ok';
  }

  remove(path: string, recursive: boolean): 'ok' | 'missing' | 'is-dir' {
    if (this.isFile(path)) {
      delete this.state.files[path];
      return 'ok';
    }
    if (!this.isDir(path)) return 'missing';
    if (!recursive) return 'is-dir';
    const below = (p: string) => p.startsWith(`${path}/`);
    for (const f of Object.keys(this.state.files)) if (below(f)) delete this.state.files[f];
    for (const d of Object.keys(this.state.dirs)) if (below(d)) delete this.state.dirs[d];
    delete this.state.dirs[path];
    return 'ok';
  }

  list(dir: string): string[] {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names = new Set<string>();
    for (const p of [...Object.keys(this.state.files), ...Object.keys(this.state.dirs)]) {
      if (p !== dir && p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0] as string);
    }
    return [...names].sort();
  }
}
