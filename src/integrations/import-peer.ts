// Loads a framework an integration is built on (an optional peer dependency) and turns "not
// installed" into an error that names the package and the command that installs it. Any other
// failure while loading (a broken install, a wrong version) is rethrown as it is.

import { SwitchyardError } from "../errors.js";

/** The package an integration needs, and how a user gets it. */
export interface PeerPackage {
  /** The npm package name, e.g. `ai`. */
  readonly name: string;
  /** The versions the integration is built for, e.g. `6`. */
  readonly version: string;
  /** The subpath export that needs it, e.g. `switchyard/ai-sdk`. */
  readonly neededBy: string;
}

/**
 * Resolves with the module `load` imports. Throws SwitchyardError `DEPENDENCY_MISSING`
 * when the package itself cannot be found, with the install command in the message.
 */
export async function importPeer<Module>(load: () => Promise<Module>, peer: PeerPackage): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, peer.name)) {
      throw new SwitchyardError(
        "DEPENDENCY_MISSING",
        `${peer.neededBy} needs the package "${peer.name}" (version ${peer.version}), which is not installed. ` +
          `Install it with: npm install ${peer.name}@${peer.version}`,
        { package: peer.name, version: peer.version },
      );
    }
    throw error;
  }
}

/** True for Node's "cannot find package" error about `name` itself, not one of its own imports. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    (message.includes(`'${name}'`) || message.includes(`"${name}"`))
  );
}
