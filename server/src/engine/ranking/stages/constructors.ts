/**
 * Constructors below the code that does the work (rule stage). A constructor (`__init__`, `__construct`,
 * `initialize`, `constructor`, Swift's `init`) takes the options of its class and stores them: its parameters, their
 * documentation and its assignments name every concept the class deals with, so a description of one behaviour of
 * the class ("where are messages held back until a per-level count threshold is exceeded") matched the constructor
 * that stores the threshold map before the method that holds the messages back (monolog's
 * `OverflowHandler.__construct` before `OverflowHandler.handle`; click's `Group.__init__` for "how does a group
 * dispatch to the subcommand"). A constructor is what a question about construction asks for — creating,
 * initialising, its options, defaults, parameters or arguments — and such a question keeps it where it is.
 */
import type { Stage } from '../candidate';

/** Words of a question about construction, options or set-up: the constructor is then an answer. */
const ASKS_ABOUT_CONSTRUCTION =
  /\b(construct\w*|creat\w*|init\w*|instantiat\w*|new|set ?up|setting ?up|build(s|ing)?|options?|settings?|config\w*|defaults?|default values?|param(eter)?s?|arguments?|args|accept(s|ed)?|takes?|wir(e|es|ed|ing)|assembl\w*|inject\w*|dependenc(y|ies)|fields?|attributes?|properties|members?)\b/i;

/** Factor of a constructor for a description that does not ask about construction. */
export const CONSTRUCTOR_FACTOR = 0.8;

export function asksAboutConstruction(text: string): boolean {
  return ASKS_ABOUT_CONSTRUCTION.test(text);
}

export const constructorsStage: Stage = {
  name: 'constructors',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'natural' || ctx.query.target || asksAboutConstruction(ctx.query.text)) return candidates;
    for (const c of candidates) {
      if (c.chunk?.kind !== 'constructor') continue;
      c.score *= CONSTRUCTOR_FACTOR;
      c.explanation.push(`×${CONSTRUCTOR_FACTOR} constructor (the description asks about what the code does, not how the object is built)`);
    }
    return candidates;
  },
};
