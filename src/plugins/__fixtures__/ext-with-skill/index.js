// Test fixture: does nothing itself; its skills/ folder carries a SKILL.md.
export default { name: 'ext-with-skill', start() {} };
