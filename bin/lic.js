#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
import { setFlagsFromString } from 'node:v8';

// undici parses HTTP with a WebAssembly build of llhttp. V8 tiers that module up with
// background compile jobs that a short-lived process must wait for at exit (~180 ms per
// command, measured); baseline (Liftoff) code is plenty for a CLI's few replies.
setFlagsFromString('--liftoff-only');

const { main, systemContext } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2), systemContext());
