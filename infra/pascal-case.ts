/** Turns a kebab-case name into the PascalCase that CloudFormation logical IDs and output names accept. */
export function pascalCase(kebabName: string): string {
  return kebabName
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
