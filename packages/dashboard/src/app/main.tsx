import { render } from 'preact';
import { App } from './app.js';
import { readConfig } from './config.js';
import './styles.css';

// The entry of dist/app/app.js (scripts/build-app.ts); index.html loads it as a module.
const root = document.getElementById('app');
if (root) render(<App config={readConfig(root)} />, root);
