import {
  computed,
  defineComponent,
  h,
  inject,
  onMounted,
  onUnmounted,
  type PropType,
  ref,
  shallowRef,
  type VNode,
} from 'vue';
import type { GalleryCard, GallerySnapshot } from '../lib/gallery-card.js';
import { CardBuffer, mergeCards } from './card-list.js';
import { cameraText, confidenceText, locationText, taskText, timeText } from './card-text.js';
import { addStyles } from './styles.js';
import { browserLanguage, textsFor } from './texts.js';

/** Dashboard 2's data tracker: wires the widget's `msg-input` and `widget-load` events. */
type DataTracker = (
  id: string,
  onInput?: (msg: { payload?: unknown }) => void,
  onLoad?: (msg: { payload?: unknown } | undefined) => void,
) => void;

const ALL = '';

function isCard(value: unknown): value is GalleryCard {
  const card = value as Partial<GalleryCard> | null;
  return typeof card?.id === 'string' && typeof card.eventName === 'string' && typeof card.time === 'string';
}

function maxCardsOf(props: Record<string, unknown>): number {
  const value = Number(props.maxCards);
  return Number.isInteger(value) && value >= 1 && value <= 200 ? value : 24;
}

/**
 * The gallery widget. Cards live in a shallowRef (one array swapped per frame, no deep
 * reactivity on each card); images load lazily from Node-RED's own routes.
 */
export default defineComponent({
  name: 'UIObservationGallery',
  props: {
    id: { type: String, required: true },
    props: { type: Object as PropType<Record<string, unknown>>, default: () => ({}) },
    state: { type: Object as PropType<Record<string, unknown>>, default: () => ({}) },
  },
  setup(props) {
    addStyles();
    const language = browserLanguage();
    const t = textsFor(language);
    const max = () => maxCardsOf(props.props);
    const cards = shallowRef<GalleryCard[]>([]);
    const eventFilter = ref(ALL);
    const taskFilter = ref(ALL);
    const open = shallowRef<GalleryCard | undefined>();
    /** Cards whose image Node-RED could not deliver (e.g. the service's file never appeared). */
    const failedImages = shallowRef<ReadonlySet<string>>(new Set());
    const imageFailed = (id: string) => {
      if (!failedImages.value.has(id)) failedImages.value = new Set([...failedImages.value, id]);
    };
    const showsImage = (card: GalleryCard) => card.imageUrl !== undefined && !failedImages.value.has(card.id);
    /** In place of the image: a flag when the snapshot should have come and did not, a note otherwise. */
    const noImageView = (card: GalleryCard): VNode =>
      card.snapshotMissing || card.imageUrl !== undefined
        ? h(
            'div',
            {
              class: 'obs-card-noimage obs-card-missing',
              'data-missing': 'snapshot',
              title: t('snapshotMissingDetail'),
            },
            t('snapshotMissing'),
          )
        : h('div', { class: 'obs-card-noimage' }, t('noSnapshot'));
    const frames = new Set<number>();
    const buffer = new CardBuffer(
      max,
      (incoming) => {
        cards.value = mergeCards(cards.value, incoming, max());
      },
      (callback) => {
        const frame = requestAnimationFrame(() => {
          frames.delete(frame);
          callback();
        });
        frames.add(frame);
      },
    );

    const onInput = (msg: { payload?: unknown }) => {
      if (isCard(msg.payload)) buffer.push(msg.payload);
    };
    const onLoad = (msg: { payload?: unknown } | undefined) => {
      const list = (msg?.payload as Partial<GallerySnapshot> | undefined)?.cards;
      if (Array.isArray(list)) cards.value = mergeCards(cards.value, list.filter(isCard), max());
    };
    const dataTracker = inject<DataTracker>('$dataTracker');
    dataTracker?.(props.id, onInput, onLoad);

    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') open.value = undefined;
    };
    onMounted(() => document.addEventListener('keydown', onKey));
    onUnmounted(() => {
      document.removeEventListener('keydown', onKey);
      for (const frame of frames) cancelAnimationFrame(frame);
    });

    const eventNames = computed(() => [...new Set(cards.value.map((card) => card.eventName))].sort());
    const tasks = computed(() => {
      const byId = new Map<number, string>();
      for (const card of cards.value) if (!byId.has(card.taskId)) byId.set(card.taskId, taskText(card, t));
      return [...byId.entries()].sort((a, b) => a[0] - b[0]);
    });
    const shown = computed(() =>
      cards.value.filter(
        (card) =>
          (eventFilter.value === ALL || card.eventName === eventFilter.value) &&
          (taskFilter.value === ALL || String(card.taskId) === taskFilter.value),
      ),
    );

    const select = (
      name: string,
      label: string,
      model: typeof eventFilter,
      options: Array<[string, string]>,
    ): VNode =>
      h('label', {}, [
        `${label} `,
        h(
          'select',
          {
            class: `obs-filter-${name}`,
            value: model.value,
            onChange: (event: Event) => {
              model.value = (event.target as HTMLSelectElement).value;
            },
          },
          [
            h('option', { value: ALL }, t('all')),
            ...options.map(([value, text]) => h('option', { value, selected: model.value === value }, text)),
          ],
        ),
      ]);

    const cardView = (card: GalleryCard): VNode => {
      const camera = cameraText(card, t);
      const location = locationText(card, t);
      return h(
        'button',
        {
          key: card.id,
          type: 'button',
          class: 'obs-card',
          'data-card-id': card.id,
          'data-time': card.time,
          title: t('openImage'),
          onClick: () => {
            open.value = card;
          },
        },
        [
          showsImage(card)
            ? h('img', {
                class: 'obs-card-image',
                // The runtime's small thumbnail; the full image only in the opened card.
                src: card.thumbUrl ?? card.imageUrl,
                alt: `${card.eventName}, ${timeText(card)}`,
                loading: 'lazy',
                decoding: 'async',
                onError: () => imageFailed(card.id),
              })
            : noImageView(card),
          h('div', { class: 'obs-card-body' }, [
            h('div', { class: 'obs-card-title' }, [
              card.hasWarning ? h('span', { class: 'obs-warning', title: t('warning') }, '⚠') : null,
              h('span', { class: 'obs-card-event' }, card.eventName),
              card.maxConfidence === undefined
                ? null
                : h(
                    'span',
                    { class: 'obs-card-confidence', title: t('highestConfidence') },
                    confidenceText(card),
                  ),
            ]),
            h('div', { class: 'obs-card-meta obs-card-task' }, taskText(card, t)),
            camera || location
              ? h(
                  'div',
                  { class: 'obs-card-meta obs-card-place' },
                  [camera, location].filter(Boolean).join(' · '),
                )
              : null,
            h('div', { class: 'obs-card-meta obs-card-time' }, timeText(card)),
          ]),
        ],
      );
    };

    const dialogView = (card: GalleryCard): VNode => {
      const rows: Array<[string, string | undefined]> = [
        [t('details.task'), taskText(card, t)],
        [t('details.camera'), cameraText(card, t)],
        [t('details.location'), locationText(card, t)],
        [t('details.time'), timeText(card)],
        [t('details.confidence'), confidenceText(card)],
        [t('details.objects'), card.objectNames.join(', ') || undefined],
      ];
      return h(
        'div',
        {
          class: 'obs-dialog',
          role: 'dialog',
          'aria-label': card.eventName,
          onClick: (event: MouseEvent) => {
            if (event.target === event.currentTarget) open.value = undefined;
          },
        },
        [
          h('div', { class: 'obs-dialog-box' }, [
            h('div', { class: 'obs-dialog-head' }, [
              card.hasWarning ? h('span', { class: 'obs-warning' }, t('warningMark')) : null,
              h('span', {}, card.eventName),
              h(
                'button',
                {
                  type: 'button',
                  class: 'obs-dialog-close',
                  'aria-label': t('close'),
                  onClick: () => {
                    open.value = undefined;
                  },
                },
                '×',
              ),
            ]),
            showsImage(card)
              ? h('img', {
                  class: 'obs-dialog-image',
                  src: card.imageUrl,
                  alt: card.eventName,
                  onError: () => imageFailed(card.id),
                })
              : noImageView(card),
            h(
              'div',
              { class: 'obs-dialog-details' },
              rows
                .filter((row): row is [string, string] => row[1] !== undefined)
                .flatMap(([label, value]) => [h('span', {}, label), h('span', {}, value)]),
            ),
            card.clipUrl
              ? h(
                  'a',
                  { class: 'obs-dialog-clip', href: card.clipUrl, target: '_blank', rel: 'noopener' },
                  t('openClip'),
                )
              : h('div', { class: 'obs-dialog-note' }, t('noClip')),
          ]),
        ],
      );
    };

    return () =>
      h('div', { class: 'obs-gallery', lang: language, 'data-gallery-id': props.id }, [
        h('div', { class: 'obs-gallery-bar' }, [
          select(
            'event',
            t('event'),
            eventFilter,
            eventNames.value.map((name) => [name, name]),
          ),
          select(
            'task',
            t('task'),
            taskFilter,
            tasks.value.map(([id, text]) => [String(id), text]),
          ),
          h(
            'span',
            { class: 'obs-gallery-count' },
            t('count', { shown: shown.value.length, total: cards.value.length }),
          ),
        ]),
        cards.value.length === 0
          ? h('div', { class: 'obs-empty' }, t('waiting'))
          : h('div', { class: 'obs-gallery-grid' }, shown.value.map(cardView)),
        open.value ? dialogView(open.value) : null,
      ]);
  },
});
