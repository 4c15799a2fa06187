import { render } from 'preact';
import { UsageApp } from './usage-app.tsx';

const root = document.getElementById('usage');
if (!root) throw new Error('the usage page has no #usage element');
render(<UsageApp />, root);
