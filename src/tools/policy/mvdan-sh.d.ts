// mvdan-sh ships no types; the policy module describes the few node shapes it reads itself.
declare module "mvdan-sh" {
  const sh: { syntax: unknown };
  export default sh;
}
