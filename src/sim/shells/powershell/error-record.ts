// An error as a script sees it: the ErrorRecord in $_ inside catch, in $Error, and in the output of `2>&1`.

import type { PsError } from './errors.js';
import { notModelled } from './syntax.js';
import { PsObject } from './values.js';

const ERRORS = new WeakMap<PsObject, PsError>();

/** The error behind a record, for `throw $_`. */
export function errorOf(record: unknown): PsError | undefined {
  return record instanceof PsObject ? ERRORS.get(record) : undefined;
}

const method = (call: (...args: unknown[]) => unknown) => ({ kind: 'method', call });

/** The ErrorRecord of `err`; `formatted` is how the console shows it (its message, position and ids). */
export function errorRecord(err: PsError, formatted: string): PsObject {
  const type = err.exceptionType;
  const exception = new PsObject(type ?? 'System.Exception', [
    ['Message', err.message],
    ['InnerException', null],
    [
      'GetType',
      method(() => {
        // catch [T] and GetType() need the real type; an error whose type the simulator does not know cannot answer.
        if (!type) throw notModelled(`the .NET type of the error '${err.errorId}'`);
        return PsObject.from({ FullName: type, Name: type.slice(type.lastIndexOf('.') + 1) }, 'System.RuntimeType');
      }),
    ],
  ]);
  exception.text = err.message;
  const [category = 'NotSpecified', reason = ''] = [/^\w+/.exec(err.category)?.[0], /, (\w+)$/.exec(err.category)?.[1]];
  const categoryInfo = PsObject.from({ Category: category, Reason: reason }, 'System.Management.Automation.ErrorCategoryInfo');
  categoryInfo.text = err.category;
  const record = new PsObject('System.Management.Automation.ErrorRecord', [
    ['Exception', exception],
    ['FullyQualifiedErrorId', err.errorId],
    ['CategoryInfo', categoryInfo],
    ...(err.targetObject === undefined ? [] : ([['TargetObject', err.targetObject]] as [string, unknown][])),
  ]);
  record.text = err.message;
  record.display = formatted.replace(/\r\n$/, '');
  ERRORS.set(record, err);
  return record;
}
