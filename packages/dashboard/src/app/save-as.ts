/** Save bytes as a file named `name`, through a blob URL (the page's CSP allows blob:). */
export function saveAs(bytes: ArrayBuffer, type: string, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
