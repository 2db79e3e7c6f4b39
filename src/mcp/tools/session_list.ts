import { formatSession } from '../format.js';
import { defineTool } from '../tool.js';

export default defineTool('session_list', {
  title: 'List terminal sessions',
  description: 'List the live sessions: id, running or exit code, size, command, title and labels.',
  input: {},
  readOnly: true,
  async run(_args, { backend }) {
    const sessions = await backend.list();
    const text = sessions.length === 0 ? 'no sessions' : sessions.map(formatSession).join('\n');
    return { text, structured: { sessions } };
  },
});
