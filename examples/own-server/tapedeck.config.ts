// bench finds this file from the working folder up to the repository root, and adds its families to the built-in ones.
import { echoAgent } from './family.js';

export default { families: [echoAgent] };
