/** `npm run --silent cli -- <command>`: the operator commands (src/cli/, D5, D97) from the sources, under tsx. */
import '../src/cli/main';
