/** Social layer (T-7): people, traits and their relations over the graph. */
export { SocialService, PERSON_TYPE } from './social-service.js';
