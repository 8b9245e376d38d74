/**
 * System programs some tests talk to (git, Neovim). `.ci/run` installs them; a test that finds one missing installs
 * the Debian package itself, and fails with the command to run when it cannot — it never skips.
 */
import { execFileSync } from 'node:child_process';

function present(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function requireSystemTool(command: string, debianPackage: string): void {
  if (present(command)) return;
  const install = () => execFileSync('apt-get', ['install', '-y', '-qq', debianPackage], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  try {
    try {
      install();
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
      install();
    }
  } catch {
    /* reported below */
  }
  if (!present(command)) {
    throw new Error(`${command} is needed by this test and could not be installed. Fix: apt-get install ${debianPackage} (as .ci/run does).`);
  }
}
