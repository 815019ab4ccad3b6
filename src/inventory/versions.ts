// What counts as a version for each component an operator can pin.

import type { VersionComponent } from './schema.js';

/** A Docker image tag (what CONTRAIL_VERSION really is): `5.0.2`, `ocata-5.0.0-134`, `latest`, `master-latest`. */
const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DOCKER = /^\d+\.\d+(\.\d+)?([-~+.][A-Za-z0-9.~+-]*)?$/;
const KUBERNETES = /^v?\d+\.\d+\.\d+$/;

const EXAMPLES: Record<VersionComponent, string> = {
  contrail: 'a release like 5.0.2, an image tag like ocata-5.0.0-134, or latest',
  docker: 'a Docker version like 18.09 or 19.03.5',
  kubernetes: 'a Kubernetes version like v1.29.4',
};

/** Undefined when `value` is a valid version of `component`, else what was expected. */
export function versionProblem(component: VersionComponent, value: string): string | undefined {
  const valid =
    component === 'contrail'
      ? IMAGE_TAG.test(value) && (/\d/.test(value) || /(^|-)latest$/.test(value))
      : component === 'docker'
        ? DOCKER.test(value)
        : KUBERNETES.test(value);
  return valid ? undefined : `"${value}" is not a ${component} version: expected ${EXAMPLES[component]}`;
}
