/**
 * Optional packages (package.json `optionalDependencies`): loaded only by the command that needs them,
 * which says how to add them when they are missing.
 */
import { FilmkwError } from '../errors.js';

/**
 * `import(name)`, or a FilmkwError USAGE naming what needs the package and the command that installs it
 * when the package is not installed.
 */
export async function importOptional<T>(name: string, neededFor: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new FilmkwError('USAGE', `${neededFor} needs the optional package ${name}, which is not installed: run \`npm install ${name}\` where filmkw is installed`, { cause: err });
    }
    throw err;
  }
}
