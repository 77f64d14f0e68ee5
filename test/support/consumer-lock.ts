/**
 * A lockfile for a consumer app that installs the packed gridwire tarball beside aws-cdk-lib and
 * constructs, resolved to exactly the versions this repository's lockfile holds. With it,
 * `npm ci --offline` installs the app from npm's cache (filled by this repository's own install):
 * the test talks to no registry, and the app runs the dependency versions tested here.
 *
 * The packages are this repository's lockfile entries reachable from the app's dependencies
 * through production dependencies, found as Node resolves them (the nearest `node_modules` up the
 * tree), at the same places in the tree.
 */

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  inBundle?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

export interface Lockfile {
  name: string;
  lockfileVersion: 3;
  requires: true;
  packages: Record<string, LockEntry>;
}

export interface PackedPackage {
  /** The tarball as the app's package.json names it (`file:...`). */
  spec: string;
  integrity: string;
  manifest: {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    engines?: Record<string, string>;
    bin?: Record<string, string>;
  };
}

/** Where Node finds `name` required from the package at `from` (a lockfile path, '' for the app). */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at === -1 ? '' : base.slice(0, at);
  }
}

/**
 * The consumer's lockfile: `appDependencies` (name to exact version, taken from `repo`) and the
 * packed package, with everything they need from `repo`'s lockfile.
 */
export function consumerLockfile(
  repo: Lockfile,
  appName: string,
  appDependencies: Record<string, string>,
  packed: PackedPackage,
): Lockfile {
  const packages: Record<string, LockEntry> = {};
  const packedPath = `node_modules/${packed.manifest.name}`;
  const pending: Array<{ from: string; name: string; optional: boolean }> = [];
  const need = (from: string, deps: Record<string, string> | undefined, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) pending.push({ from, name, optional });
  };
  need('', appDependencies, false);
  // The packed package's dependencies resolve from its own place in the tree.
  need(packedPath, packed.manifest.dependencies, false);
  while (pending.length > 0) {
    const { from, name, optional } = pending.pop() as (typeof pending)[number];
    const path = resolveIn(repo.packages, from, name);
    if (path === undefined) {
      if (optional) continue;
      throw new Error(`${name} (needed by ${from || 'the app'}) is not in this repository's lockfile`);
    }
    if (packages[path] !== undefined) continue;
    const { dev, devOptional, peer, ...entry } = repo.packages[path] as LockEntry;
    packages[path] = devOptional === true ? { ...entry, optional: true } : entry;
    need(path, entry.dependencies, false);
    need(path, entry.optionalDependencies, true);
    need(
      path,
      Object.fromEntries(
        Object.keys(entry.peerDependencies ?? {})
          .filter((peerName) => entry.peerDependenciesMeta?.[peerName]?.optional !== true)
          .map((peerName) => [peerName, '*']),
      ),
      false,
    );
  }
  const { manifest } = packed;
  return {
    name: appName,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: appName, dependencies: { ...appDependencies, [manifest.name]: packed.spec } },
      [packedPath]: {
        version: manifest.version,
        resolved: packed.spec,
        integrity: packed.integrity,
        dependencies: manifest.dependencies,
        peerDependencies: manifest.peerDependencies,
        ...(manifest.bin === undefined ? {} : { bin: manifest.bin }),
        ...(manifest.engines === undefined ? {} : { engines: manifest.engines }),
      },
      ...Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
