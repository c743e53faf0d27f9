import { render } from 'preact';
import { App } from './app';
import { takeCallback } from './oidc';

// First thing: an identity provider's answer (`?code&state`) leaves the address bar before any
// request or render, so the code is never in the history, a bookmark or a referrer.
const callback = takeCallback();
render(<App callback={callback} />, document.getElementById('app')!);
