#!/usr/bin/env node
// dist/cli.js checks the Node version before it loads anything else (src/cli/bin.ts).
import "../dist/cli.js";
