// What Dashboard 2 imports from the UMD file: window['ui-observation-gallery'].UIObservationGallery.
export { default as UIObservationGallery } from './gallery-component.js';
