/**
 * Before/after views of one file: for images a slider over the two pictures (the range input moves the
 * boundary, so the keyboard works) with a zoom; for video and audio the two players side by side.
 */
import { useState } from 'preact/hooks';

const ZOOMS = [1, 2, 4, 8];

export function ImageCompare(props: { before: string; after: string; name: string }) {
  const { before, after, name } = props;
  const [position, setPosition] = useState(50);
  const [zoom, setZoom] = useState(1);
  const id = `cmp-${name.replace(/[^a-zA-Z0-9]/g, '-')}`;
  return (
    <div class="compare">
      <div class="compare-controls">
        <label for={`${id}-pos`}>Before / after</label>
        <input
          id={`${id}-pos`}
          type="range"
          min={0}
          max={100}
          value={position}
          aria-valuetext={`${position} % before, ${100 - position} % after`}
          onInput={(e) => setPosition(Number(e.currentTarget.value))}
        />
        <label for={`${id}-zoom`}>Zoom</label>
        <select id={`${id}-zoom`} value={zoom} onChange={(e) => setZoom(Number(e.currentTarget.value))}>
          {ZOOMS.map((z) => (
            <option key={z} value={z}>
              {z}×
            </option>
          ))}
        </select>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable when zoomed, so it takes focus to scroll by keyboard. */}
      <section class="compare-view" tabIndex={0} aria-label={`${name}: before and after, zoom ${zoom}×`}>
        <div class="compare-stage" style={{ width: `${zoom * 100}%` }}>
          <img src={before} alt={`${name} before`} />
          <img
            class="compare-after"
            src={after}
            alt={`${name} after`}
            style={{ clipPath: `inset(0 0 0 ${position}%)` }}
          />
          <div class="compare-line" style={{ left: `${position}%` }} aria-hidden="true" />
        </div>
      </section>
      <p class="muted small">
        <span>Left: before</span> · <span>right: after</span>
      </p>
    </div>
  );
}

export function MediaCompare(props: {
  kind: 'video' | 'audio';
  before: string;
  after: string;
  name: string;
}) {
  const { kind, before, after, name } = props;
  return (
    <div class="media-compare">
      {[
        ['Before', before],
        ['After', after],
      ].map(([label, src]) => (
        <figure key={label}>
          <figcaption>{label}</figcaption>
          {kind === 'video' ? (
            // biome-ignore lint/a11y/useMediaCaption: user files have no caption track to offer.
            <video controls preload="metadata" src={src} aria-label={`${name} ${label?.toLowerCase()}`} />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: user files have no caption track to offer.
            <audio controls preload="metadata" src={src} aria-label={`${name} ${label?.toLowerCase()}`} />
          )}
        </figure>
      ))}
    </div>
  );
}
