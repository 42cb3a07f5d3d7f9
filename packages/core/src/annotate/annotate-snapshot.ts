import { ValidationError } from '../errors/validation-error.js';
import type { DetectedObject } from '../model/observation-event.js';
import type { AnnotatedSnapshot, AnnotateOptions } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';
import { resolveAnnotateOptions } from './annotate-options.js';
import { defaultFontScale, defaultLineWidth, drawAnnotations, warningLineWidth } from './draw-annotations.js';
import { decodeImage, encodeImage } from './image-codec.js';
import { scaleDown } from './raster.js';

/**
 * Draws each detected object's box and a label (name and confidence in %) on a PNG or JPEG
 * snapshot; warning objects get their own colour and a thicker outline. Boxes are normalized
 * `[cx, cy, w, h]` as in `ObservationEvent.objects`; parts outside the image are clipped and
 * unusable entries skipped.
 *
 * Throws a `ValidationError` for bad options, for `objects` that is not an array, and for image
 * bytes that are not a decodable PNG or JPEG (parameter `image`). When nothing is drawn and the
 * format does not change, the original bytes are returned (a JPEG is not re-compressed for nothing).
 */
export function annotateSnapshot(
  image: Uint8Array,
  objects: readonly DetectedObject[],
  options?: AnnotateOptions,
): AnnotatedSnapshot {
  const resolved = resolveAnnotateOptions(options);
  if (!(image instanceof Uint8Array)) {
    throw new ValidationError('image', describeValue(image), 'the image bytes as a Buffer or Uint8Array');
  }
  if (!Array.isArray(objects)) {
    throw new ValidationError(
      'objects',
      describeValue(objects),
      'an array of detected objects (event.objects)',
    );
  }
  const decoded = decodeImage(image, resolved.maxPixels);
  const { width, height } = decoded;
  const lineWidth = resolved.lineWidth ?? defaultLineWidth(width, height);
  const drawn = drawAnnotations(decoded, objects, {
    lineWidth,
    warningLineWidth: warningLineWidth(lineWidth),
    fontScale: resolved.fontScale ?? defaultFontScale(width, height),
    labels: resolved.labels,
    boxColour: resolved.boxColour,
    warningColour: resolved.warningColour,
  });
  const format = resolved.format ?? decoded.format;
  const scaled = resolved.maxWidth === undefined ? decoded : scaleDown(decoded, resolved.maxWidth);
  const data =
    drawn === 0 && format === decoded.format && scaled === decoded
      ? Buffer.from(image)
      : encodeImage(scaled, format, { quality: resolved.quality, alpha: decoded.alpha });
  return {
    data,
    contentType: format === 'png' ? 'image/png' : 'image/jpeg',
    width: scaled.width,
    height: scaled.height,
    fileName: `${resolved.fileStem}-annotated.${format === 'png' ? 'png' : 'jpg'}`,
    drawn,
  };
}
