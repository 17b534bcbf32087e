/**
 * A stacked bar chart drawn as inline SVG: one bar per day, one colour per series (a kind). Small enough
 * that no chart library is needed; the numbers are also in a table for screen readers and exact reading.
 */

export interface ChartSeries {
  name: string;
  /** One value per label, in label order. */
  values: number[];
}

/** Colour-blind-safe palette (Okabe–Ito), each at least 3:1 against white as a graphic. */
const COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8a6d00', '#56508f', '#000000'];

const WIDTH = 640;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 8;

export function BarChart(props: {
  title: string;
  labels: string[];
  series: ChartSeries[];
  format: (value: number) => string;
}) {
  const { title, labels, series, format } = props;
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = labels.length > 0 ? plotWidth / labels.length : plotWidth;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  // Whole counts only: a middle line at half of 1 was labelled 1, like the top.
  const ticks = max >= 2 ? [0, Math.round(max / 2), max] : [0, max];
  const labelEvery = Math.max(1, Math.ceil(labels.length / 8));
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}: bar chart, table below`}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={WIDTH - 8} y1={y(tick)} y2={y(tick)} stroke="#d0d5dd" />
            <text x={LEFT - 6} y={y(tick) + 4} text-anchor="end" font-size="11" fill="#344054">
              {format(tick)}
            </text>
          </g>
        ))}
        {labels.map((label, i) => {
          let base = 0;
          const x = LEFT + i * slot + (slot - barWidth) / 2;
          return (
            <g key={label}>
              {series.map((s, k) => {
                const value = s.values[i] ?? 0;
                const top = y(base + value);
                const height = y(base) - top;
                base += value;
                return value > 0 ? (
                  <rect
                    key={s.name}
                    x={x}
                    y={top}
                    width={barWidth}
                    height={height}
                    fill={COLOURS[k % COLOURS.length]}
                  >
                    <title>{`${label} ${s.name}: ${format(value)}`}</title>
                  </rect>
                ) : null;
              })}
              {i % labelEvery === 0 && (
                <text x={x + barWidth / 2} y={HEIGHT - 10} text-anchor="middle" font-size="11" fill="#344054">
                  {label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul class="legend">
        {series.map((s, k) => (
          <li key={s.name}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={COLOURS[k % COLOURS.length]} />
            </svg>{' '}
            {s.name}
          </li>
        ))}
      </ul>
      <details>
        <summary>{title} as a table</summary>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" key={s.name}>
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, i) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {series.map((s) => (
                    <td key={s.name}>{format(s.values[i] ?? 0)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
