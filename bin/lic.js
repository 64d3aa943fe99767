#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
import { main, systemContext } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2), systemContext());
