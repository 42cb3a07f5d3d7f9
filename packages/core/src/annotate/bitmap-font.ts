/**
 * A 5×7 bitmap font for printable ASCII (32–126), drawn for this package. Each glyph is 7 rows;
 * each row is one base-32 digit whose 5 bits are the pixels, left to right. Embedding it keeps
 * labels free of any font file or native text renderer.
 */
const glyphs =
  '00000004444404aaa0000aavavaa4fke5u4op248j3cik8lid44800002488842842224804lel40044v4400000c48000v00000000cc01248g0ehjlphe4c4444eeh1248vv2421he26aiv22vgu11he68guhhev124888ehhehheehhf12c0cc0cc00cc0c48248g84200v0v008421248eh12404eh1dlleehhvhhhuhhuhhuehggghesihhhisvgguggvvggugggehgnhhfhhhvhhhe44444e72222ichikokihggggggvhrllhhhhhpljhhehhhhheuhhugggehhhliduhhukihfgge11uv444444hhhhhhehhhhha4hhhlllahha4ahhhhha444v1248gve88888e0g84210e22222e4ah0000000000v842000000e1fhfggmphhu00egghe11djhhf00ehvge698s8880fhhf1eggmphhh40c444e20622icggikokic44444e00qllhh00mphhh00ehhhe00uhugg00djf1100mpggg00ege1u88s889600hhhjd00hhha400hhlla00ha4ah00hhf1e00v248v244844244444448442448008l200';

export const glyphWidth = 5;
export const glyphHeight = 7;
const first = 32;
const last = 126;
const fallback = '?'.charCodeAt(0);

/** True when pixel (column, row) of the glyph for `code` is set; codes outside the font draw as `?`. */
export function glyphPixel(code: number, column: number, row: number): boolean {
  const index = code >= first && code <= last ? code - first : fallback - first;
  const bits = Number.parseInt(glyphs.charAt(index * glyphHeight + row), 32);
  return ((bits >> (glyphWidth - 1 - column)) & 1) === 1;
}
