/**
 * Questions a library's user asks about using it — a how-to ("how do I send logs to a socket", "how to load an
 * extension"), a recommendation ("recommended keep-alive settings", "should a greeter answer the prompts", "is there a
 * way to …"), what is supported, upgrading and breaking changes, "what should I use instead of …", "why does my
 * handler block", examples, the docs. A guide answers them as well as the code does; a description of what the code
 * does ("where are cookie values signed") is answered by the code. Retrieval's prose discount
 * (`retrieval.denseProseFactor`) spares them, as it spares seed 004's information questions.
 */
const USAGE =
  /\bhow (do|can|should|would) (i|we|you|one)\b|\bhow to\b|\bis there a way\b|\bshould (i|we|a|an|the)\b|\brecommend\w*|\bsupported\b|\bupgrad\w*|\bmigrat\w*|\bbreaking changes?\b|\bwhy (does|do|is|are) (my|the)\b|\bwhat should\b|\binstead of\b|\bbest practices?\b|\bexamples?\b|\bdocs\b|\bdoc\b|\bdocumentation\b|\bguides?\b/i;

export function asksAboutUsage(text: string): boolean {
  return USAGE.test(text);
}
