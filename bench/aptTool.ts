/**
 * Tools the benchmarks compare against (ripgrep, Debian's codesearch): installed with apt-get when missing, so that a
 * run on a fresh machine has their rows; when that fails too, the caller reports the row as missing — never silently.
 */
import { execFileSync } from 'node:child_process';

/** Installs Debian package `pkg` unless `present()` already holds; returns why the tool is missing, or undefined. */
export function ensureAptTool(present: () => boolean, pkg: string, what: string): string | undefined {
  if (present()) return undefined;
  const install = () => execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'ignore' });
  try {
    install();
  } catch {
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
      install();
    } catch {
      /* reported below */
    }
  }
  return present() ? undefined : `${what} is not installed and \`apt-get install ${pkg}\` failed: its rows are missing`;
}
