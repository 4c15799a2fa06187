import { render } from 'preact';
import { App } from './app.tsx';

const root = document.getElementById('console');
if (!root) throw new Error('the console page has no #console element');
render(<App />, root);
