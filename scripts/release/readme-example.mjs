/** The first ```ts block of a README: the package's "10-line example". */
export const extractExample = (readme) => {
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(readme)
  return match ? match[1] : null
}
