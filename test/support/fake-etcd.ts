// etcd on a Map, for the unit tests of cluster code: the calls that code makes (a KV txn with compares; put,
// get; `if(key, 'Version', '>', 0).then(put).commit()`), answered as etcd answers them. Anything else the code
// reaches for on the client is refused by name, so a new call is modelled here before a test can pass on it.
// The same code on a real etcd: test/ha/*-etcd.test.ts.

import type { Etcd3, ITxnRequest } from 'etcd3';

export interface FakeEtcd {
  /** The store: read and change it directly to set a scene or check a write. */
  kv: Map<string, string>;
  client: Etcd3;
  /** The next `count` calls throw, as etcd past its deadline does. */
  failNext(count: number): void;
  /** How many calls reached the store (failed ones too). */
  calls(): number;
}

interface PutOp {
  apply(): void;
  exec(): Promise<void>;
  lease(id: string): { exec(): Promise<void> };
}

export function fakeEtcd(kv = new Map<string, string>()): FakeEtcd {
  let failing = 0;
  let calls = 0;
  /** Every call goes through here: counted, and failed while `failNext` says so. */
  const call = async <T>(answer: () => T): Promise<T> => {
    calls++;
    if (failing > 0) {
      failing--;
      throw new Error('deadline exceeded');
    }
    return answer();
  };
  const txn = (req: ITxnRequest) =>
    call(() => {
      const succeeded = (req.compare ?? []).every((c) => {
        if (c.target !== 'Value' || c.result !== 'Equal') throw new Error(`fakeEtcd: a ${c.target} ${c.result} compare is not modelled`);
        return kv.get(String(c.key)) === String(c.value);
      });
      const responses = (succeeded ? req.success : req.failure)?.map((op) => {
        if (op.request_put) kv.set(String(op.request_put.key), String(op.request_put.value));
        else if (op.request_delete_range) kv.delete(String(op.request_delete_range.key));
        else if (!op.request_range) throw new Error(`fakeEtcd: the txn op ${Object.keys(op).join(', ')} is not modelled`);
        const read = op.request_range ? kv.get(String(op.request_range.key)) : undefined;
        return { response_range: { kvs: read === undefined ? [] : [{ value: Buffer.from(read) }] } };
      });
      return { succeeded, responses };
    });
  const put = (key: string) => ({
    value: (value: string): PutOp => {
      const op: PutOp = {
        apply: () => void kv.set(key, value),
        exec: () => call(() => op.apply()),
        lease: () => ({ exec: () => call(() => op.apply()) }),
      };
      return op;
    },
  });
  const modelled = {
    kv: { txn },
    put,
    get: (key: string) => ({ string: () => call(() => kv.get(key) ?? null) }),
    if: (key: string, target: string, comparator: string, value: number) => {
      if (target !== 'Version' || comparator !== '>' || value !== 0)
        throw new Error(`fakeEtcd: if(${target} ${comparator} ${value}) is not modelled, only "the key exists"`);
      return {
        // biome-ignore lint/suspicious/noThenProperty: etcd3's comparison builder is spelled if().then().commit()
        then: (op: PutOp) => ({
          commit: () =>
            call(() => {
              const succeeded = kv.has(key);
              if (succeeded) op.apply();
              return { succeeded };
            }),
        }),
      };
    },
  };
  const client = new Proxy(modelled, {
    get(target, name) {
      if (typeof name === 'symbol' || name === 'then') return undefined;
      if (!(name in target)) throw new Error(`fakeEtcd: Etcd3.${name} is not modelled`);
      return target[name as keyof typeof target];
    },
  }) as unknown as Etcd3;
  return {
    kv,
    client,
    failNext: (count) => {
      failing = count;
    },
    calls: () => calls,
  };
}
