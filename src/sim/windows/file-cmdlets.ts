// Files and directories in the simulator: New-Item, Set-Content, Get-Content, Remove-Item, Copy-Item, Get-ChildItem.

import { createHash } from 'node:crypto';
import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { PsError, PsUnmodelled } from '../shells/powershell/errors.js';
import { toItems, toText } from '../shells/powershell/values.js';
import { perPath } from './per-path.js';
import { providerChildren } from './provider-items.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

function pathNotFound(path: string, cmdlet: string): PsError {
  return new PsError(
    `Cannot find path '${path}' because it does not exist.`,
    `PathNotFound,Microsoft.PowerShell.Commands.${cmdlet}Command`,
    `ObjectNotFound: (${path}:String) [${cmdlet}], ItemNotFoundException`,
  );
}

function item(host: WindowsHost, path: string) {
  const dir = host.fs.isDir(path);
  return obj(
    { FullName: path, Name: path.replace(/^.*\\/, ''), PSIsContainer: dir, Length: dir ? null : (host.fs.read(path) ?? '').length },
    dir ? 'System.IO.DirectoryInfo' : 'System.IO.FileInfo',
  );
}

const newItem: Spec = {
  name: 'New-Item',
  params: {
    Path: { type: 'string[]', position: 0 },
    ItemType: { type: 'string', aliases: ['Type'] },
    Value: { type: 'object' },
    Force: { type: 'switch' },
    Name: { type: 'string' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const out = [];
    for (const raw of args.Path as string[]) {
      const path = args.Name ? `${raw}\\${toText(args.Name)}` : raw;
      const type = toText(args.ItemType ?? 'File').toLowerCase();
      const exists = host.fs.isDir(path) || host.fs.isFile(path);
      if (exists && !args.Force) {
        ctx.error(
          new PsError(
            `An item with the specified name ${path} already exists.`,
            'DirectoryExist,Microsoft.PowerShell.Commands.NewItemCommand',
            'ResourceExists',
          ),
        );
        continue;
      }
      if (type === 'directory') {
        // New-Item creates missing parent directories, with or without -Force.
        if (!host.fs.isDir(path)) host.record(`mkdir ${path}`);
        host.fs.mkdirp(path);
      } else {
        host.record(`write ${path}`);
        const content = args.Value === undefined ? '' : toText(args.Value);
        if (args.Force) host.fs.put(path, content);
        else if (!host.fs.write(path, content)) {
          ctx.error(pathNotFound(path, 'New-Item'));
          continue;
        }
      }
      out.push(item(host, path));
    }
    return out;
  },
};

const setContent: Spec = {
  name: 'Set-Content',
  params: {
    Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] },
    Value: { type: 'object', position: 1 },
    Encoding: {
      type: 'string',
      values: ['ASCII', 'UTF8', 'Unicode', 'Default', 'OEM', 'UTF32', 'BigEndianUnicode', 'Byte', 'String', 'Unknown'],
    },
    NoNewline: { type: 'switch' },
    Force: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    if (toText(args.Encoding).toLowerCase() === 'byte') return setBytes(host, args, input, ctx);
    const lines = (args.Value !== undefined ? toItems(args.Value) : input).map(toText);
    // Set-Content writes each value followed by CRLF unless -NoNewline, like Windows PowerShell 5.1.
    const content = args.NoNewline ? lines.join('') : lines.map((l) => `${l}\r\n`).join('');
    for (const path of args.Path as string[]) {
      if (host.fs.read(path) === content) continue;
      if (!host.fs.write(path, content)) {
        ctx.error(
          new PsError(
            `Could not find a part of the path '${path}'.`,
            'System.IO.DirectoryNotFoundException,Microsoft.PowerShell.Commands.SetContentCommand',
            'ObjectNotFound',
          ),
        );
        continue;
      }
      host.record(`write ${path}`);
    }
    return [];
  },
};

/**
 * Set-Content -Encoding Byte (Windows PowerShell 5.1): the bytes as they are. Like [IO.File]::WriteAllBytes on
 * Windows, it cannot write the executable of a running service.
 */
function setBytes(host: WindowsHost, args: Record<string, unknown>, input: unknown[], ctx: Parameters<Spec['run']>[3]): unknown[] {
  const given = args.Value !== undefined ? args.Value : input.length === 1 ? input[0] : input;
  // -Value is Object[]: real binding hands the cmdlet a byte[]'s bytes one by one (the TypeScript interpreter keeps
  // the byte[] whole).
  const isByte = (b: unknown) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255;
  const value = Array.isArray(given) && given.every(isByte) ? Buffer.from(given as number[]) : given;
  if (!Buffer.isBuffer(value))
    throw new PsUnmodelled(
      'groundcrew sim: Set-Content -Encoding Byte of anything but bytes ([Convert]::FromBase64String) is not modelled',
    );
  for (const path of args.Path as string[]) {
    const problem = host.writeBytes(path, value);
    if (problem?.startsWith('Could not find a part of the path'))
      ctx.error(
        new PsError(problem, 'System.IO.DirectoryNotFoundException,Microsoft.PowerShell.Commands.SetContentCommand', 'ObjectNotFound'),
      );
    else if (problem)
      ctx.error(new PsError(problem, 'System.IO.IOException,Microsoft.PowerShell.Commands.SetContentCommand', 'WriteError'));
  }
  return [];
}

const getContent: Spec = {
  name: 'Get-Content',
  params: {
    Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] },
    Raw: { type: 'switch' },
    Tail: { type: 'int' },
    Encoding: { type: 'string' },
  },
  run(host, args, _input, ctx) {
    const out: unknown[] = [];
    for (const path of args.Path as string[]) {
      const text = host.fs.read(path);
      if (text === undefined) {
        ctx.error(pathNotFound(path, 'Get-Content'));
        continue;
      }
      if (args.Raw) {
        out.push(text);
        continue;
      }
      const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
      out.push(...(typeof args.Tail === 'number' ? lines.slice(-args.Tail) : lines));
    }
    return out;
  },
};

const removeItem: Spec = {
  name: 'Remove-Item',
  params: { Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] }, Recurse: { type: 'switch' }, Force: { type: 'switch' } },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    for (const path of args.Path as string[]) {
      const locked = host.inUse(path);
      if (locked) {
        ctx.error(new PsError(`Cannot remove item ${path}: ${locked}`, 'RemoveFileSystemItemIOError', 'WriteError'));
        continue;
      }
      const result = host.fs.remove(path, Boolean(args.Recurse));
      if (result === 'missing') ctx.error(pathNotFound(path, 'Remove-Item'));
      else if (result === 'not-empty')
        ctx.error(
          new PsError(
            `The item at ${path} has children and the Recurse parameter was not specified.`,
            'DirectoryNotEmpty',
            'InvalidOperation',
          ),
        );
      else host.record(`remove ${path}`);
    }
    return [];
  },
};

const copyItem: Spec = {
  name: 'Copy-Item',
  params: {
    Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] },
    Destination: { type: 'string', position: 1 },
    Force: { type: 'switch' },
    Recurse: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const destination = toText(args.Destination);
    for (const path of args.Path as string[]) {
      const sources = path.endsWith('*') ? host.fs.list(path.replace(/\\?\*$/, '')).filter((p) => host.fs.isFile(p)) : [path];
      if (sources.length === 0 || !sources.every((s) => host.fs.isFile(s))) {
        ctx.error(pathNotFound(path, 'Copy-Item'));
        continue;
      }
      for (const source of sources) {
        const target = host.fs.isDir(destination) ? `${destination}\\${source.replace(/^.*\\/, '')}` : destination;
        const content = host.fs.read(source) ?? '';
        if (host.fs.read(target) === content) continue;
        if (!host.fs.write(target, content))
          ctx.error(new PsError(`Could not find a part of the path '${target}'.`, 'System.IO.DirectoryNotFoundException', 'WriteError'));
        else host.record(`copy ${source} ${target}`);
      }
    }
    return [];
  },
};

/** Move-Item of a file; -Force replaces the destination, which Windows refuses while a running service holds it. */
const moveItem: Spec = {
  name: 'Move-Item',
  params: {
    Path: { type: 'string', position: 0, aliases: ['LiteralPath'] },
    Destination: { type: 'string', position: 1 },
    Force: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const [source, destination] = [toText(args.Path), toText(args.Destination)];
    const content = host.fs.read(source);
    if (content === undefined) {
      ctx.error(pathNotFound(source, 'Move-Item'));
      return [];
    }
    const problem =
      host.inUse(source) ??
      host.inUse(destination) ??
      (host.fs.isFile(destination) && !args.Force ? 'Cannot create a file when that file already exists.' : undefined);
    if (problem) {
      ctx.error(new PsError(problem, 'MoveFileInfoItemIOError,Microsoft.PowerShell.Commands.MoveItemCommand', 'WriteError'));
      return [];
    }
    if (!host.fs.write(destination, content)) {
      ctx.error(new PsError(`Could not find a part of the path '${destination}'.`, 'MoveFileInfoItemIOError', 'WriteError'));
      return [];
    }
    host.fs.remove(source, false);
    host.record(`move ${source} ${destination}`);
    return [];
  },
};

const getChildItem: Spec = {
  name: 'Get-ChildItem',
  params: { Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] }, Filter: { type: 'string' } },
  run(host, args, _input, ctx) {
    const out = [];
    for (const path of (args.Path as string[] | undefined) ?? ['C:\\']) {
      const special = providerChildren(host, path);
      if (special) {
        out.push(...special);
        continue;
      }
      if (!host.fs.isDir(path)) {
        ctx.error(pathNotFound(path, 'Get-ChildItem'));
        continue;
      }
      out.push(...host.fs.list(path).map((p) => item(host, p)));
    }
    return out;
  },
};

const getFileHash: Spec = {
  name: 'Get-FileHash',
  params: {
    Path: { type: 'string[]', position: 0, aliases: ['LiteralPath'] },
    Algorithm: { type: 'string', values: ['SHA1', 'SHA256', 'SHA384', 'SHA512', 'MD5'] },
  },
  run(host, args, _input, ctx) {
    const algorithm = toText(args.Algorithm ?? 'SHA256');
    return (args.Path as string[]).flatMap((path) => {
      const content = host.fs.read(path);
      if (content === undefined) {
        ctx.error(pathNotFound(path, 'Get-FileHash'));
        return [];
      }
      const hash = createHash(algorithm.toLowerCase()).update(Buffer.from(content, 'latin1')).digest('hex').toUpperCase();
      return [obj({ Algorithm: algorithm, Hash: hash, Path: path })];
    });
  },
};

export const FILE_CMDLETS: Spec[] = [newItem, setContent, getContent, removeItem, copyItem, perPath(moveItem), getChildItem, getFileHash];
