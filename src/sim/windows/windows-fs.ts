// The simulated Windows file system: case-insensitive paths, files and directories, nothing else.

export interface WindowsFile {
  path: string;
  content: string;
}

export interface WindowsFsState {
  files: Record<string, WindowsFile>;
  dirs: Record<string, string>;
}

/** `c:/ProgramData//Contrail\` → `C:\ProgramData\Contrail`; the lower-cased form is the key. */
function normalizePath(path: string): string {
  let p = path.replace(/\//g, '\\').replace(/\\+/g, '\\');
  if (/^[a-z]:/i.test(p)) p = p[0]?.toUpperCase() + p.slice(1);
  if (p.length > 3 && p.endsWith('\\')) p = p.slice(0, -1);
  return p;
}

const key = (path: string) => normalizePath(path).toLowerCase();

function parent(path: string): string | undefined {
  const p = normalizePath(path);
  const at = p.lastIndexOf('\\');
  if (at <= 2) return at === 2 ? p.slice(0, 3) : undefined;
  return p.slice(0, at);
}

export class WindowsFs {
  constructor(readonly state: WindowsFsState) {}

  static empty(): WindowsFsState {
    return {
      files: {},
      dirs: {
        'c:\\': 'C:\\',
        'c:\\windows': 'C:\\Windows',
        'c:\\windows\\system32': 'C:\\Windows\\System32',
        'c:\\programdata': 'C:\\ProgramData',
        'c:\\program files': 'C:\\Program Files',
      },
    };
  }

  isFile(path: string): boolean {
    return key(path) in this.state.files;
  }

  isDir(path: string): boolean {
    return key(path) in this.state.dirs;
  }

  read(path: string): string | undefined {
    return this.state.files[key(path)]?.content;
  }

  mkdirp(path: string): void {
    const p = normalizePath(path);
    const up = parent(p);
    if (up && !this.isDir(up)) this.mkdirp(up);
    this.state.dirs[key(p)] = p;
  }

  /** Writes a file; the parent directory must exist, as on Windows. Returns false when it does not. */
  write(path: string, content: string): boolean {
    const p = normalizePath(path);
    const up = parent(p);
    if (up && !this.isDir(up)) return false;
    this.state.files[key(p)] = { path: p, content };
    return true;
  }

  /** Writes a file creating its directories (MSI installs, docker extracting artifacts). */
  put(path: string, content: string): void {
    const up = parent(path);
    if (up) this.mkdirp(up);
    this.write(path, content);
  }

  remove(path: string, recursive: boolean): 'removed' | 'missing' | 'not-empty' {
    const k = key(path);
    if (k in this.state.files) {
      delete this.state.files[k];
      return 'removed';
    }
    if (!(k in this.state.dirs)) return 'missing';
    const below = (x: string) => x.startsWith(`${k}\\`);
    const children = [...Object.keys(this.state.files), ...Object.keys(this.state.dirs)].filter(below);
    if (children.length > 0 && !recursive) return 'not-empty';
    for (const f of Object.keys(this.state.files)) if (below(f)) delete this.state.files[f];
    for (const d of Object.keys(this.state.dirs)) if (below(d)) delete this.state.dirs[d];
    delete this.state.dirs[k];
    return 'removed';
  }

  list(dir: string): string[] {
    const k = key(dir);
    const all = [...Object.values(this.state.files).map((f) => f.path), ...Object.values(this.state.dirs)];
    return all.filter((p) => parent(p)?.toLowerCase() === k);
  }
}
